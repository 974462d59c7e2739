"""Reads a PDF with pypdf (an independent parser) and prints what the tests check, as JSON:
pages, whether and how it is encrypted, every form field's value, the text each field's appearance
stream draws (what a viewer shows), and the text of every page.

    inspect_pdf.py FILE [PASSWORD]
"""
import json
import logging
import re
import sys

from pypdf import PdfReader

logging.getLogger("pypdf").setLevel(logging.ERROR)

reader = PdfReader(sys.argv[1])
report = {"encrypted": reader.is_encrypted}
if reader.is_encrypted:
    encryption = reader.trailer["/Encrypt"]
    report["encryption"] = {"V": int(encryption["/V"]), "R": int(encryption["/R"])}
    if len(sys.argv) < 3 or not reader.decrypt(sys.argv[2]):
        report["opened"] = False
        print(json.dumps(report))
        sys.exit(0)
report["opened"] = True
report["pages"] = len(reader.pages)
report["fields"] = {name: (str(field.get("/V")) if field.get("/V") is not None else None) for name, field in (reader.get_fields() or {}).items()}

# The text an appearance stream shows: its string operands, in order.
appearances = {}
for page in reader.pages:
    for annotation in page.get("/Annots") or []:
        widget = annotation.get_object()
        if widget.get("/Subtype") != "/Widget" or "/AP" not in widget:
            continue
        name, node = [], widget
        while node is not None:
            if "/T" in node:
                name.insert(0, str(node["/T"]))
            node = node.get("/Parent").get_object() if "/Parent" in node else None
        normal = widget["/AP"].get("/N")
        if normal is None:
            continue
        normal = normal.get_object()
        if "/AS" in widget and hasattr(normal, "keys") and widget["/AS"] in normal:
            appearances[".".join(name)] = str(widget["/AS"])
            continue
        if hasattr(normal, "get_data"):
            content = normal.get_data().decode("latin-1")
            shown = "".join(re.findall(r"\((.*?)(?<!\\)\)\s*Tj", content))
            if shown:
                appearances[".".join(name)] = shown
report["appearances"] = appearances
report["text"] = [page.extract_text() for page in reader.pages]
print(json.dumps(report))
