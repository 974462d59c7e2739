import Envelope

/// What the pdf-email service refuses, beyond invalid fields.
enum PdfEmailError: Error, OperationErrorConvertible, CustomStringConvertible {
    case mailNotFound(String)

    var description: String {
        switch self {
        case .mailNotFound(let id): "there is no mail \(id)"
        }
    }

    var operationError: OperationError {
        switch self {
        case .mailNotFound: OperationError(.notFound, description)
        }
    }
}
