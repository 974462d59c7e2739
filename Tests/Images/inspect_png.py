"""Reads a PNG file with Python's zlib, independently of our writer, and prints what it holds as
JSON: width, height, bitDepth, colorType, palette ([r, g, b] each) and pixels (how many of each
palette index). Every chunk's CRC is checked and the pixel data inflated; it reads what
DefaultPicture writes (palette images, filter type none) and fails loudly on anything else."""
import json
import struct
import sys
import zlib


def main(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    offset, chunks = 8, []
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind!r}"
        chunks.append((kind, body))
        offset += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", "IHDR must come first and IEND last"
    width, height, depth, color, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (color, compression, filtering, interlace) == (3, 0, 0, 0), "expected a palette image, not interlaced"
    palette = next(body for kind, body in chunks if kind == b"PLTE")
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    row = (width * depth + 7) // 8
    assert len(pixels) == height * (row + 1), "pixel data of the wrong length"
    counts = {}
    for y in range(height):
        line = pixels[y * (row + 1):(y + 1) * (row + 1)]
        assert line[0] == 0, "expected filter type none"
        for x in range(width):
            bit = x * depth
            index = (line[1 + bit // 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
            counts[index] = counts.get(index, 0) + 1
    print(json.dumps({
        "width": width, "height": height, "bitDepth": depth, "colorType": color,
        "palette": [list(palette[i:i + 3]) for i in range(0, len(palette), 3)],
        "pixels": {str(k): v for k, v in sorted(counts.items())},
    }))


if __name__ == "__main__":
    main(sys.argv[1])
