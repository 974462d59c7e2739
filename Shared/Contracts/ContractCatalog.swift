import Envelope

/// Every bus operation Melon defines. Contract tests check that each has examples on file.
public enum ContractCatalog {
    public static let operations: [any BusOperation.Type] = [
        Echo.Message.Repeat.self,
        PdfEmail.Mail.Send.self,
        PdfEmail.Mail.Status.self,
    ]
}
