import Foundation

/// Small real images for tests, made from one 40×30 gradient: the PNG with Python's zlib, the JPEG
/// with libjpeg-turbo's cjpeg (quality 60), the WebP files with libwebp's cwebp (lossy and lossless).
public enum ImageSamples {
    public static let png40x30 = decode("iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAIAAADRv8uKAAAI0ElEQVR42g3Noc6CUACAUZIjGJiJ5AgGZiI5goGZbnIEAzORHMHATCT2BQMzkRzBwEw3OYKBmW5yBAMzkRzBwHyK/z8vcDRNY6Qx1phomBpTjZnGXMPRWGgsNVYaQmOtsdHYaoQaO429xkEj0Ug1jhonjVzjrHHRuGpIjZvGXeOhoTSeGi+Nt0an8dH4avw0NE1npDPWmeiYOlOdmc5cx9FZ6Cx1VjpCZ62z0dnqhDo7nb3OQSfRSXWOOiedXOesc9G56kidm85d56GjdJ46L523Tqfz0fnq/PT/2GBkMDaYGJgGU4OZwdzAMVgYLA1WBsJgbbAx2BqEBjuDvcHBIDFIDY4GJ4Pc4GxwMbgaSIObwd3gYaAMngYvg7dBZ/Ax+Br8jP/YZGQyNpmYmCZTk5nJ3MQxWZgsTVYmwmRtsjHZmoQmO5O9ycEkMUlNjiYnk9zkbHIxuZpIk5vJ3eRhokyeJi+Tt0ln8jH5mvzM/9hiZDG2mFiYFlOLmcXcwrFYWCwtVhbCYm2xsdhahBY7i73FwSKxSC2OFieL3OJscbG4WkiLm8Xd4mGhLJ4WL4u3RWfxsfha/Kz/2GZkM7aZ2Jg2U5uZzdzGsVnYLG1WNsJmbbOx2dqENjubvc3BJrFJbY42J5vc5mxzsbnaSJubzd3mYaNsnjYvm7dNZ/Ox+dr87P/YYeQwdpg4mA5Th5nD3MFxWDgsHVYOwmHtsHHYOoQOO4e9w8EhcUgdjg4nh9zh7HBxuDpIh5vD3eHhoByeDi+Ht0Pn8HH4Ovyc/9hl5DJ2mbiYLlOXmcvcxXFZuCxdVi7CZe2ycdm6hC47l73LwSVxSV2OLieX3OXscnG5ukiXm8vd5eGiXJ4uL5e3S+fycfm6/Nz/2GPkMfaYeJgeU4+Zx9zD8Vh4LD1WHsJj7bHx2HqEHjuPvcfBI/FIPY4eJ4/c4+xx8bh6SI+bx93j4aE8nh4vj7dH5/Hx+Hr8vP9YMBKMBROBKZgKZoK5wBEsBEvBSiAEa8FGsBWEgp1gLzgIEkEqOApOglxwFlwEV4EU3AR3wUOgBE/BS/AWdIKP4Cv4if/YZ+Qz9pn4mD5Tn5nP3MfxWfgsfVY+wmfts/HZ+oQ+O5+9z8En8Ul9jj4nn9zn7HPxufpIn5vP3efho3yePi+ft0/n8/H5+vz8/zhgFDAOmASYAdOAWcA8wAlYBCwDVgEiYB2wCdgGhAG7gH3AISAJSAOOAaeAPOAccAm4BsiAW8A94BGgAp4Br4B3QBfwCfgG/IL/OGQUMg6ZhJgh05BZyDzECVmELENWISJkHbIJ2YaEIbuQfcghJAlJQ44hp5A85BxyCbmGyJBbyD3kEaJCniGvkHdIF/IJ+Yb8wv84YhQxjphEmBHTiFnEPMKJWEQsI1YRImIdsYnYRoQRu4h9xCEiiUgjjhGniDziHHGJuEbIiFvEPeIRoSKeEa+Id0QX8Yn4Rvyi/zhmFDOOmcSYMdOYWcw8xolZxCxjVjEiZh2zidnGhDG7mH3MISaJSWOOMaeYPOYcc4m5xsiYW8w95hGjYp4xr5h3TBfzifnG/OL/OGGUME6YJJgJ04RZwjzBSVgkLBNWCSJhnbBJ2CaECbuEfcIhIUlIE44Jp4Q84ZxwSbgmyIRbwj3hkaASngmvhHdCl/BJ+Cb8kv8YRjCGCZgwhRnMwYEFLGEFAtawgS2EsIM9HCCBFI5wghzOcIErSLjBHR6g4AkveEMHH/jCj/84Y5QxzphkmBnTjFnGPMPJWGQsM1YZImOdscnYZoQZu4x9xiEjyUgzjhmnjDzjnHHJuGbIjFvGPeORoTKeGa+Md0aX8cn4Zvyy/zhnlDPOmeSYOdOcWc48x8lZ5CxzVjkiZ52zydnmhDm7nH3OISfJSXOOOaecPOecc8m55sicW84955Gjcp45r5x3Tpfzyfnm/PL/uGBUMC6YFJgF04JZwbzAKVgULAtWBaJgXbAp2BaEBbuCfcGhIClIC44Fp4K84FxwKbgWyIJbwb3gUaAKngWvgndBV/Ap+Bb8iv+4ZFQyLpmUmCXTklnJvMQpWZQsS1YlomRdsinZloQlu5J9yaEkKUlLjiWnkrzkXHIpuZbIklvJveRRokqeJa+Sd0lX8in5lvzK/1gykowlE4kpmUpmkrnEkSwkS8lKIiRryUaylYSSnWQvOUgSSSo5Sk6SXHKWXCRXiZTcJHfJQ6IkT8lL8pZ0ko/kK/nJ/7hiVDGumFSYFdOKWcW8wqlYVCwrVhWiYl2xqdhWhBW7in3FoSKpSCuOFaeKvOJccam4VsiKW8W94lGhKp4Vr4p3RVfxqfhW/Kr/uGZUM66Z1Jg105pZzbzGqVnULGtWNaJmXbOp2daENbuafc2hJqlJa441p5q85lxzqbnWyJpbzb3mUaNqnjWvmndNV/Op+db86v9YMVKMFROFqZgqZoq5wlEsFEvFSiEUa8VGsVWEip1irzgoEkWqOCpOilxxVlwUV4VU3BR3xUOhFE/FS/FWdIqP4qv4qf+4YdQwbpg0mA3ThlnDvMFpWDQsG1YNomHdsGnYNoQNu4Z9w6EhaUgbjg2nhrzh3HBpuDbIhlvDveHRoBqeDa+Gd0PX8Gn4Nvya/7hl1DJumbSYLdOWWcu8xWlZtCxbVi2iZd2yadm2hC27ln3LoSVpSVuOLaeWvOXccmm5tsiWW8u95dGiWp4tr5Z3S9fyafm2/Nr/uGPUMe6YdJgd045Zx7zD6Vh0LDtWHaJj3bHp2HaEHbuOfcehI+lIO44dp46849xx6bh2yI5bx73j0aE6nh2vjndH1/Hp+Hb8uv+4Z9Qz7pn0mD3TnlnPvMfpWfQse1Y9omfds+nZ9oQ9u559z6En6Ul7jj2nnrzn3HPpufbInlvPvefRo3qePa+ed0/X8+n59vz6/3hgNDAemAyYA9OB2cB8wBlYDCwHVgNiYD2wGdgOhAO7gf3AYSAZSAeOA6eBfOA8cBm4DsiB28B94DGgBp4Dr4H3QDfwGfgO/Ab+ANhDnIsXFMTWAAAAAElFTkSuQmCC")
    /// 8×8: below the smallest profile picture.
    public static let png8x8 = decode("iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAeklEQVR42g3JIQ4AMQgAQRRBIJoqVINANKhKnrdPvxs7IoIKLmwhhCOU0IKIoYYb2wjjGGW0/bHQhS/2IhZnUYtefwQaeLCDCE5QQccfiSae7CSSk1TS+cdFL37Zl7icS136/vHQhz/2Ix7nUY9+fww6+LCHGM5QQw8fEdgsQWhjAeAAAAAASUVORK5CYII=")
    public static let jpeg40x30 = decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCAAeACgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDh47b2qzHbe1Xo7b2qzHbe1erOuYYfElGO29qsx23tV6O29qsx23tXNOue3h8SUY7b2orXjtvaiud1z2KeJ0KUdt7VZjtvarscAqzHAKwnWPy3D4gpR23tVmO29quxwCrMcArmnWPcw+IKUdt7UVrRwCiud1j16eI0P//Z")
    public static let webpLossy40x30 = decode("UklGRpgAAABXRUJQVlA4IIwAAAAQBQCdASooAB4APoEwlEe4KqIhOrmYAwAQCWoAnTNQuS+wcaSFvRhdqnORbj6yV/9AAP77eQDpr6CX1DtYL7H/44G1ZL8vcVWd05GMuwLyym85/5HAfAdd+bIMzk8Bu3kQo+UGeQUtvRipVPNDzAQPLsqdZQ4MoZtC8I1AEzFAOGWzuOEjUS9zrOKAAA==")
    public static let webpLossless40x30 = decode("UklGRjoAAABXRUJQVlA4TC4AAAAvJ0AHAAmAIAb8N0uI6H+qBUAQ/sslRPQ/lYFI26bw/mUPH43BAMYEUNWB6r8A")

    private static func decode(_ text: String) -> [UInt8] { Array(Data(base64Encoded: text)!) }
}

extension ImageSamples {
    /// `jpeg` with an EXIF segment (APP1) holding a GPS position, 53°20′N, as a phone writes it.
    public static func withGPSPosition(_ jpeg: [UInt8]) -> [UInt8] {
        // TIFF header (big-endian), IFD0 with one entry: the GPS IFD at 26.
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
        tiff += [0x00, 0x01, 0x88, 0x25, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1A, 0x00, 0x00, 0x00, 0x00]
        // GPS IFD: GPSLatitudeRef "N", GPSLatitude three rationals at 56; no next IFD.
        tiff += [0x00, 0x02]
        tiff += [0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x4E, 0x00, 0x00, 0x00]
        tiff += [0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x38]
        tiff += [0x00, 0x00, 0x00, 0x00]
        for (numerator, denominator) in [(53, 1), (20, 1), (0, 1)] { tiff += bigEndian(UInt32(numerator)) + bigEndian(UInt32(denominator)) }
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1] + bigEndian(UInt16(payload.count + 2)) + payload
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    /// `png` claiming to be `width`×`height` in its header (with the header's checksum right).
    public static func claiming(_ png: [UInt8], width: Int, height: Int) -> [UInt8] {
        var bytes = png
        bytes.replaceSubrange(16..<24, with: bigEndian(UInt32(width)) + bigEndian(UInt32(height)))
        bytes.replaceSubrange(29..<33, with: bigEndian(crc32(Array(bytes[12..<29]))))
        return bytes
    }

    public static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }

    private static func bigEndian<I: FixedWidthInteger>(_ value: I) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
