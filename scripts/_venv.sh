# Sourced by scripts/demo, scripts/test and scripts/bench: create (or reuse) the project's
# virtual environment in .venv and install Gossamer into it with the given extras.
# Usage: ensure_venv [extras]     e.g. ensure_venv dev
# With the dev extra it also installs the spark extra (PySpark, for tests/test_spark_engine.py) and makes
# sure Debian's `chromium` (the browser tests drive it through the `playwright` Python package; see
# ensure_browser) and a Java runtime for Spark (see ensure_java) are installed.
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
    case ",$extras," in
        *,dev,*) case ",$extras," in *,spark,*) ;; *) extras="$extras,spark" ;; esac ;;
    esac
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
    case ",$extras," in
        *,dev,*) ensure_browser; ensure_java ;;
    esac
}

# The browser tests run Debian's chromium (never `playwright install`: that downloads from a CDN).
# Installs it with apt-get when `chromium` is not on PATH; quiet, idempotent, exits 2 if apt fails.
# GOSSAMER_SKIP_BROWSER=1 skips this (and the browser tests) on machines without apt.
ensure_browser() {
    if [ "${GOSSAMER_SKIP_BROWSER:-}" = 1 ] || command -v chromium > /dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get > /dev/null 2>&1; then
        echo "warning: chromium is not installed and there is no apt-get to install it;" \
             "the browser tests will fail (install Chromium, or set GOSSAMER_SKIP_BROWSER=1 to skip them)" >&2
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
            sudo=(sudo -n)
        else
            echo "error: the browser tests need Debian's chromium: run 'apt-get install chromium' as root" \
                 "(or set GOSSAMER_SKIP_BROWSER=1 to skip the browser tests)" >&2
            exit 2
        fi
    fi
    echo "== installing chromium (apt-get) for the browser tests"
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/gossamer-apt.XXXXXX")"
    if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
           && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
              apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core; } > "$log" 2>&1 \
         || ! command -v chromium > /dev/null 2>&1; then
        cat "$log" >&2
        echo "error: installing chromium with apt-get failed (log above, also in $log);" \
             "set GOSSAMER_SKIP_BROWSER=1 to skip the browser tests" >&2
        exit 2
    fi
    rm -f "$log"
}

# Spark (the spark extra; tests/test_spark_engine.py) needs a Java 17+ runtime. Installs Debian's
# openjdk-17-jre-headless with apt-get when `java` is not on PATH; quiet, idempotent, exits 2 if apt
# fails. GOSSAMER_SKIP_JAVA=1 skips this (the Spark tests then skip themselves).
ensure_java() {
    if [ "${GOSSAMER_SKIP_JAVA:-}" = 1 ] || command -v java > /dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get > /dev/null 2>&1; then
        echo "warning: java is not installed and there is no apt-get to install it;" \
             "the Spark engine tests will be skipped (install Java 17+, or set GOSSAMER_SKIP_JAVA=1)" >&2
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
            sudo=(sudo -n)
        else
            echo "error: the Spark engine needs Java 17+: run 'apt-get install openjdk-17-jre-headless' as root" \
                 "(or set GOSSAMER_SKIP_JAVA=1 to skip the Spark tests)" >&2
            exit 2
        fi
    fi
    echo "== installing openjdk-17-jre-headless (apt-get) for the Spark engine"
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/gossamer-apt.XXXXXX")"
    if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
           && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
              apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless; } > "$log" 2>&1 \
         || ! command -v java > /dev/null 2>&1; then
        cat "$log" >&2
        echo "error: installing openjdk-17-jre-headless with apt-get failed (log above, also in $log);" \
             "set GOSSAMER_SKIP_JAVA=1 to skip the Spark tests" >&2
        exit 2
    fi
    rm -f "$log"
}
