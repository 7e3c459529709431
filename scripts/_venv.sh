# Sourced by scripts/demo, scripts/test and scripts/bench: create (or reuse) the project's
# virtual environment in .venv and install Gossamer into it with the given extras.
# Usage: ensure_venv [extras]     e.g. ensure_venv dev
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

ensure_venv() {
    local extras="${1:-}"
    local python="${PYTHON:-python3}"
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "error: Gossamer needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
        exit 2
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        echo "== creating virtual environment in $VENV"
        "$python" -m venv "$VENV"
        "$VENV/bin/python" -m pip install --quiet --upgrade pip > "$VENV/install.log" 2>&1 || true
    fi
    local target="$ROOT"
    [ -n "$extras" ] && target="$ROOT[$extras]"
    local stamp="$VENV/.installed-${extras:-base}"
    if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
        echo "== installing gossamer${extras:+[$extras]} (editable)"
        if ! "$VENV/bin/python" -m pip install --quiet -e "$target" > "$VENV/install.log" 2>&1; then
            cat "$VENV/install.log" >&2
            echo "error: installing gossamer failed (log above, also in $VENV/install.log)" >&2
            exit 2
        fi
        touch "$stamp"
    fi
}
