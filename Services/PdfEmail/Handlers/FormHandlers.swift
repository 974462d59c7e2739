import Bus
import Envelope
import Foundation
import NIOPosix
import PdfEmailContract

/// `pdf-email.forms.fill.v1`: the forms as one PDF, made on NIO's blocking thread pool.
struct FormHandlers: Sendable {
    let packet: FormPacket

    @Sendable
    func fill(_ request: PdfEmail.Forms.Fill.Request, _ context: RequestContext) async throws -> PdfEmail.Forms.Fill.Response {
        var validation = Validation()
        packet.check(request, &validation)
        try validation.finish()
        let made = try await NIOThreadPool.singleton.runIfActive { try packet.make(request) }
        return .init(pdf: made.pdf, pages: made.pages, sha256: made.sha256, forms: made.forms)
    }
}
