# Sourced by scripts/demo, scripts/test and scripts/bench: create (or reuse) the project's
# virtual environment in .venv and install Gossamer into it with the given extras.
# Usage: ensure_venv [extras]     e.g. ensure_venv dev
# With the dev extra it also installs the spark extra (PySpark, for tests/test_spark_engine.py) and makes
# sure Debian's `chromium` (the browser tests drive it through the `playwright` Python package; see
# ensure_browser), a Java runtime for Spark (see ensure_java) and strace (see ensure_strace) are installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

# pick_python: the interpreter the virtual environment is made from. $PYTHON when set; otherwise the
# distribution's /usr/bin/python3 when it is 3.11+ and can make virtual environments, else python3 on PATH.
# Distributions (Debian, Ubuntu, Fedora) build their Python with profile-guided optimization and LTO and link
# it statically; a default pyenv or source build has neither. On the crawl step Debian's 3.11 spent
# 3.3-3.9 % less CPU per page than pyenv's 3.11 on the same code, side by side (bench/README.md, session 35).
pick_python() {
    if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
    local system=/usr/bin/python3
    if [ -x "$system" ] && "$system" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' \
            2>/dev/null; then
        echo "$system"
    else
        echo python3
    fi
}

ensure_venv() {
    local extras="${1:-}"
    local python
    python="$(pick_python)"
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
    # Reinstalled when the project's metadata or a C source changed (the editable install builds the optional
    # extension into src/; without a compiler it is skipped and the Python path runs).
    local changed=""
    for f in "$ROOT/pyproject.toml" "$ROOT/setup.py" "$ROOT"/src/gossamer/plugins/builtin/*.[ch] "$ROOT"/src/gossamer/crawl/parse/*.c "$ROOT"/src/gossamer/store/*.c; do
        [ -f "$f" ] && [ "$f" -nt "$stamp" ] && changed=1
    done
    if [ ! -f "$stamp" ] || [ -n "$changed" ]; then
        echo "== installing gossamer${extras:+[$extras]} (editable)"
        if ! "$VENV/bin/python" -m pip install --quiet -e "$target" > "$VENV/install.log" 2>&1; then
            cat "$VENV/install.log" >&2
            echo "error: installing gossamer failed (log above, also in $VENV/install.log)" >&2
            exit 2
        fi
        touch "$stamp"
    fi
    # lexbor rebuilt with LTO and PGO (once per selectolax version; never fails the install): parse-html's
    # parse takes ~15 % less CPU than with PyPI's wheel. GOSSAMER_SELECTOLAX_WHEEL=1 keeps the wheel.
    "$VENV/bin/python" "$ROOT/scripts/build_selectolax.py" || true
    # An editable install leaves src/ without bytecode, and with PYTHONDONTWRITEBYTECODE set every process
    # (each spawned task process of a crawl too) compiles every module it imports again: ~0.15 s of CPU per
    # process. Compile it once here, as a regular (wheel) install does; stale files are recompiled.
    env -u PYTHONDONTWRITEBYTECODE "$VENV/bin/python" -m compileall -q "$ROOT/src" > /dev/null 2>&1 || true
    case ",$extras," in
        *,dev,*) ensure_browser; ensure_java; ensure_strace ;;
    esac
}

# apt_ensure COMMAND SKIP_VAR PURPOSE PACKAGE...: make sure COMMAND is on PATH, installing the Debian
# PACKAGEs with apt-get when it is not (quiet, idempotent; as root, or with passwordless sudo).
# SKIP_VAR=1 in the environment skips it. Without apt-get: a warning. apt failing: the log and exit 2.
apt_ensure() {
    local command="$1" skip_var="$2" purpose="$3"
    shift 3
    if [ "${!skip_var:-}" = 1 ] || command -v "$command" > /dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get > /dev/null 2>&1; then
        echo "warning: $command is not installed and there is no apt-get to install it;" \
             "$purpose will not run (install $*, or set $skip_var=1)" >&2
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
            sudo=(sudo -n)
        else
            echo "error: $purpose need(s) $command: run 'apt-get install $*' as root" \
                 "(or set $skip_var=1 to skip)" >&2
            exit 2
        fi
    fi
    echo "== installing $* (apt-get) for $purpose"
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/gossamer-apt.XXXXXX")"
    if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
           && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
              apt-get install -y -qq --no-install-recommends "$@"; } > "$log" 2>&1 \
         || ! command -v "$command" > /dev/null 2>&1; then
        cat "$log" >&2
        echo "error: installing $* with apt-get failed (log above, also in $log); set $skip_var=1 to skip" >&2
        exit 2
    fi
    rm -f "$log"
}

# The browser tests run Debian's chromium (never `playwright install`: that downloads from a CDN).
# GOSSAMER_SKIP_BROWSER=1 skips this (and the browser tests) on machines without apt.
ensure_browser() {
    apt_ensure chromium GOSSAMER_SKIP_BROWSER "the browser tests" chromium fonts-dejavu-core
}

# The crash-point tests (tests/test_crash_points.py) kill jobs at each rename with strace's fault injection.
# GOSSAMER_SKIP_STRACE=1 skips this (and those tests).
ensure_strace() {
    apt_ensure strace GOSSAMER_SKIP_STRACE "the crash-point tests" strace
}

# Spark (the spark extra; tests/test_spark_engine.py) needs a Java 17+ runtime.
# GOSSAMER_SKIP_JAVA=1 skips this (the Spark tests then skip themselves).
ensure_java() {
    apt_ensure java GOSSAMER_SKIP_JAVA "the Spark engine tests" openjdk-17-jre-headless
}
