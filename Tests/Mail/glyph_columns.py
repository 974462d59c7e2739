"""Where the value of each named form field lands when the page is rendered.

Usage: glyph_columns.py PDF PAGE FIELD...

Renders page PAGE (from 1) of PDF with poppler's pdftoppm at 288 dpi, with NeedAppearances unset
so that the field appearance streams stored in the file are drawn (as a viewer or printer that
does not draw fields itself would), and prints JSON: for each field, its /Rect and the runs of
columns (in points, from the page's left) where the rendered box holds ink.
"""
import json
import subprocess
import sys
import tempfile

from pypdf import PdfReader, PdfWriter
from pypdf.generic import BooleanObject, NameObject

SCALE = 4  # 288 dpi


def main():
    path, page_number, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    reader = PdfReader(path)
    writer = PdfWriter(clone_from=reader)
    acroform = writer._root_object.get("/AcroForm")
    if acroform is not None:
        acroform.get_object()[NameObject("/NeedAppearances")] = BooleanObject(False)
    rects = {}
    for annotation in writer.pages[page_number - 1].get("/Annots") or []:
        widget = annotation.get_object()
        name, node = [], widget
        while node is not None:
            if "/T" in node:
                name.insert(0, str(node["/T"]))
            node = node.get("/Parent").get_object() if "/Parent" in node else None
        full = ".".join(name)
        if full in names:
            rects[full] = [float(v) for v in widget["/Rect"]]
    with tempfile.TemporaryDirectory() as folder:
        copy = folder + "/copy.pdf"
        with open(copy, "wb") as out:
            writer.write(out)
        subprocess.run(["pdftoppm", "-r", str(72 * SCALE), "-f", str(page_number), "-l", str(page_number), "-singlefile", copy, folder + "/page"], check=True)
        width, height, pixels = read_ppm(folder + "/page.ppm")
    media = [float(v) for v in reader.pages[page_number - 1].mediabox]
    report = {}
    for name, (llx, lly, urx, ury) in rects.items():
        x0, x1 = int((llx - media[0]) * SCALE), int((urx - media[0]) * SCALE)
        y0, y1 = int((media[3] - ury) * SCALE), int((media[3] - lly) * SCALE)
        inked = []
        for x in range(max(0, x0 + 2), min(width, x1 - 1)):
            column = False
            for y in range(max(0, y0 + 2), min(height, y1 - 1)):
                r, g, b = pixels[(y * width + x) * 3: (y * width + x) * 3 + 3]
                # The value's ink: the fields' navy (0, 0, 0.502) or black, not the form's light fill.
                if r < 90 and g < 90 and b < 200:
                    column = True
                    break
            inked.append(column)
        runs, start = [], None
        for offset, column in enumerate(inked + [False]):
            if column and start is None:
                start = offset
            elif not column and start is not None:
                runs.append([(x0 + 2 + start) / SCALE + media[0], (x0 + 2 + offset) / SCALE + media[0]])
                start = None
        report[name] = {"rect": [llx, lly, urx, ury], "runs": runs}
    print(json.dumps(report))


def read_ppm(path):
    with open(path, "rb") as file:
        data = file.read()
    fields, position = [], 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            while data[position:position + 1] != b"\n":
                position += 1
            continue
        start = position
        while not data[position:position + 1].isspace():
            position += 1
        fields.append(data[start:position])
    position += 1
    assert fields[0] == b"P6", "a binary PPM"
    return int(fields[1]), int(fields[2]), data[position:]


if __name__ == "__main__":
    main()
