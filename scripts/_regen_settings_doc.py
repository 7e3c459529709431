"""Replace the property table in docs/settings.md with `gossamer showproperties --markdown`."""

import subprocess
import sys
from pathlib import Path

doc = Path(__file__).resolve().parents[1] / "docs" / "settings.md"
table = subprocess.run([str(Path(sys.executable).with_name("gossamer")), "showproperties", "--markdown"],
                       capture_output=True, text=True, check=True).stdout
lines = doc.read_text().splitlines(keepends=True)
start = next(i for i, line in enumerate(lines) if line.startswith("| property | default |"))
end = start
while end < len(lines) and lines[end].startswith("|"):
    end += 1
doc.write_text("".join(lines[:start]) + table + "".join(lines[end:]))
