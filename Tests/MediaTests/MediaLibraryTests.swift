import Contracts
import Foundation
import Media
import PostgresSupport
import Testing
import TestSupport

/// Kept images on a real database: kept with their thumbnail, served by id and variant with an
/// entity tag that never changes, deleted with their bytes, and forgotten with their uploader.
@Suite(.timeLimit(.minutes(2))) struct MediaLibraryTests {
    @Test func anUploadIsKeptServedAndDeletedWithItsBytes() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let library = MediaLibrary(database: database)
            let ana = UUID()
            let image = try await library.process(Data(await TestImages.file(.heic, width: 800, height: 600)), mediaType: "image/heic")
            let record = try await database.transaction { try await library.keep(image, account: ana, on: $0) }
            #expect(record.full == .init(mediaType: "image/jpeg", width: 800, height: 600, size: image.full.bytes.count))
            #expect(record.thumbnail.mediaType == "image/webp" && record.thumbnail.width == 320)

            try await database.transaction { connection in
                let found = try #require(try await library.record(record.id, on: connection))
                #expect(found.id == record.id && found.account == ana && found.full == record.full && found.thumbnail == record.thumbnail)
                let full = try await library.file(found, .full, ifNoneMatch: nil, on: connection)
                #expect(full.content.map(Array.init) == image.full.bytes && full.mediaType == "image/jpeg")
                let thumbnail = try await library.file(found, .thumbnail, ifNoneMatch: nil, on: connection)
                #expect(thumbnail.content.map(Array.init) == image.thumbnail.bytes && thumbnail.etag != full.etag)
                let again = try await library.file(found, .full, ifNoneMatch: "\"other\", \(full.etag)", on: connection)
                #expect(again.content == nil && again.etag == full.etag, "the client has it: no bytes")
            }
            try await database.transaction { try await library.delete([record.id], on: $0) }
            #expect(try await Self.blobCount(database) == 0, "the bytes go with the record")
            #expect(try await database.transaction { try await library.record(record.id, on: $0) } == nil)
        }
    }

    @Test func erasingTheUploaderErasesTheirImagesOnly() async throws {
        let database = try TestDatabase.make()
        try await BusHarness.with([database]) {
            try await database.migrate([])
            let library = MediaLibrary(database: database)
            let (ana, ben) = (UUID(), UUID())
            let image = try await library.process(Data(await TestImages.file(.png)), mediaType: "image/png")
            let kept = try await database.transaction { connection in
                [try await library.keep(image, account: ana, on: connection), try await library.keep(image, account: ana, on: connection),
                 try await library.keep(image, account: ben, on: connection)]
            }
            #expect(try await database.transaction { try await database.forgetMedia(of: ana, on: $0) } == 2)
            #expect(try await Self.blobCount(database) == 2, "ben's image and its thumbnail")
            #expect(try await database.transaction { try await library.record(kept[2].id, on: $0) } != nil)
        }
    }

    static func blobCount(_ database: Database) async throws -> Int {
        try await database.transaction { connection in
            var count = 0
            for try await value in try await connection.query("SELECT count(*)::int FROM media_blobs", logger: database.logger).decode(Int.self) { count = value }
            return count
        }
    }
}
