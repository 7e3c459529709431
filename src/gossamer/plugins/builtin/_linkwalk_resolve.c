/* _linkwalk: LinkResolver.resolve's common shapes in C; the rest is left to the Python resolver (see _linkwalk.c). */
#include "_linkwalk.h"

/* ---------- the common shapes of LinkResolver.resolve, in C ---------- */


static PyObject *str_slashes, *str_slash_dot, *str_dot_slash; /* "//", "/.", "./" */

int resolve_init(void) {
    str_slashes = PyUnicode_InternFromString("//");
    str_slash_dot = PyUnicode_InternFromString("/.");
    str_dot_slash = PyUnicode_InternFromString("./");
    return str_slashes != NULL && str_slash_dot != NULL && str_dot_slash != NULL ? 0 : -1;
}

void base_clear(lw_base *b) {
    Py_CLEAR(b->base);
    Py_CLEAR(b->scheme);
    Py_CLEAR(b->origin);
    Py_CLEAR(b->path_url);
    Py_CLEAR(b->directory);
}

int base_parts(PyObject *ctx, lw_base *b) {
    const char *names[] = {"base", "scheme", "origin", "path_url", "directory"};
    PyObject **slots[] = {&b->base, &b->scheme, &b->origin, &b->path_url, &b->directory};
    for (int i = 0; i < 5; i++) {
        PyObject *value = PyObject_GetAttrString(ctx, names[i]);
        if (value == NULL && !PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        if (value == NULL || !PyUnicode_CheckExact(value)) {
            PyErr_Clear();
            Py_XDECREF(value);
            base_clear(b);
            return 0; /* not a BaseContext as expected: every href goes to Python */
        }
        *slots[i] = value;
    }
    PyObject *root = PyObject_GetAttrString(ctx, "root");
    b->root = root != NULL && PyLong_CheckExact(root) ? PyLong_AsSsize_t(root) : -1;
    Py_XDECREF(root);
    if (b->root < 0) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_AttributeError) &&
            !PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        base_clear(b);
        return 0;
    }
    return 1;
}

static int contains(PyObject *s, PyObject *sub, Py_ssize_t start) {
    Py_ssize_t at = PyUnicode_Find(s, sub, start, PyUnicode_GET_LENGTH(s), 1);
    return at == -2 ? -1 : at >= 0;
}

/* _dotted: `url` itself unless its path holds "/." (1, *out set), else 0 (Python resolves), -1 on error. */
static int dotted(PyObject *url, PyObject **out) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(url);
    Py_ssize_t scheme_end = PyUnicode_Find(url, str_slashes, 0, n, 1);
    if (scheme_end == -2) return -1;
    Py_ssize_t path_start = scheme_end >= 0 ? PyUnicode_FindChar(url, '/', scheme_end + 2, n, 1) : -1;
    if (path_start == -2) return -1;
    if (path_start >= 0) {
        int dot = contains(url, str_slash_dot, path_start);
        if (dot != 0) return dot < 0 ? -1 : 0; /* dot segments: for Python */
    }
    *out = Py_NewRef(url);
    return 1;
}

static int is_alpha(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Whether `h` starts with a scheme (regex [A-Za-z][A-Za-z0-9+.-]*:): its length, else 0. */
static Py_ssize_t scheme_length(PyObject *h) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(h);
    if (n == 0 || !is_alpha(PyUnicode_READ_CHAR(h, 0))) return 0;
    Py_ssize_t i = 1;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ_CHAR(h, i);
        if (!(is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-')) break;
        i++;
    }
    return i < n && PyUnicode_READ_CHAR(h, i) == ':' ? i : 0;
}

static int scheme_kept(PyObject *h, Py_ssize_t len) {
    static const char *kept[] = {"http", "https", "ftp", "file"};
    for (int k = 0; k < 4; k++) {
        if ((Py_ssize_t)strlen(kept[k]) != len) continue;
        Py_ssize_t i = 0;
        for (; i < len; i++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(h, i);
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != (Py_UCS4)kept[k][i]) break;
        }
        if (i == len) return 1;
    }
    return 0;
}

static int starts_with(PyObject *s, const char *prefix) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), len = (Py_ssize_t)strlen(prefix);
    if (n < len) return 0;
    for (Py_ssize_t i = 0; i < len; i++)
        if (PyUnicode_READ_CHAR(s, i) != (Py_UCS4)(unsigned char)prefix[i]) return 0;
    return 1;
}

/* BaseContext.up(levels): the directory `levels` above the base's directory, never above the root. */
static PyObject *up(const lw_base *b, Py_ssize_t levels) {
    PyObject *directory = Py_NewRef(b->directory);
    for (Py_ssize_t i = 0; i < levels; i++) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(directory);
        if (n <= b->root) break; /* at the root: every further level is the root too */
        Py_ssize_t slash = PyUnicode_FindChar(directory, '/', 0, n - 1, -1);
        if (slash == -2) {
            Py_DECREF(directory);
            return NULL;
        }
        PyObject *upper = PyUnicode_Substring(directory, 0, slash + 1);
        Py_DECREF(directory);
        if (upper == NULL) return NULL;
        directory = upper;
    }
    return directory;
}

/* LinkResolver._relative_dots for leading ../ and ./ (1 with *out); 0 for what urljoin must do. */
static int relative_dots(const lw_base *b, PyObject *h, PyObject **out) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(h), start = 0, levels = 0;
    for (;;) {
        if (start + 3 <= n && PyUnicode_READ_CHAR(h, start) == '.' && PyUnicode_READ_CHAR(h, start + 1) == '.' &&
            PyUnicode_READ_CHAR(h, start + 2) == '/') {
            start += 3;
            levels++;
        } else if (start + 2 <= n && PyUnicode_READ_CHAR(h, start) == '.' && PyUnicode_READ_CHAR(h, start + 1) == '/') {
            start += 2;
        } else {
            break;
        }
    }
    if (start < n) { /* ".x", "../.x", "a/./b", "a/..": urljoin, as the Python resolver does */
        if (PyUnicode_READ_CHAR(h, start) == '.') return 0;
        int dot = contains(h, str_slash_dot, start);
        if (dot != 0) return dot < 0 ? -1 : 0;
    }
    PyObject *directory = up(b, levels);
    if (directory == NULL) return -1;
    PyObject *rest = PyUnicode_Substring(h, start, n);
    if (rest == NULL) {
        Py_DECREF(directory);
        return -1;
    }
    *out = PyUnicode_Concat(directory, rest);
    Py_DECREF(directory);
    Py_DECREF(rest);
    return *out != NULL ? 1 : -1;
}

/* LinkResolver.resolve for its common shapes: 1 with *out (a str or None), 0 when Python must
 * resolve (control characters, dot segments), -1 on error.  The same steps in the same order. */
int resolve_fast(const lw_base *b, PyObject *href, PyObject **out) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(href), end = n;
    int kind = PyUnicode_KIND(href);
    const void *data = PyUnicode_DATA(href);
    int colon = 0, dot = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '#') {
            end = i;
            break;
        }
        if (c == '\t' || c == '\n' || c == '\r') return 0;
        colon |= c == ':';
        dot |= c == '.';
    }
    if (end == 0) {
        *out = Py_NewRef(n == 0 ? b->base : Py_None);
        return 1;
    }
    PyObject *h = end < n ? PyUnicode_Substring(href, 0, end) : Py_NewRef(href);
    if (h == NULL) return -1;
    int rc = 0;
    Py_UCS4 first = PyUnicode_READ_CHAR(h, 0);
    if (first == '/') {
        PyObject *url;
        if (end > 1 && PyUnicode_READ_CHAR(h, 1) == '/') {
            PyObject *with_colon = PyUnicode_FromFormat("%U:", b->scheme);
            url = with_colon != NULL ? PyUnicode_Concat(with_colon, h) : NULL;
            Py_XDECREF(with_colon);
        } else {
            url = PyUnicode_Concat(b->origin, h);
        }
        rc = url != NULL ? dotted(url, out) : -1;
        Py_XDECREF(url);
    } else if (first == '?') {
        *out = PyUnicode_Concat(b->path_url, h);
        rc = *out != NULL ? 1 : -1;
    } else if (starts_with(h, "http://") || starts_with(h, "https://")) {
        rc = dotted(h, out);
    } else {
        Py_ssize_t scheme = colon ? scheme_length(h) : 0;
        if (scheme > 0) {
            if (scheme_kept(h, scheme)) {
                rc = dotted(h, out);
            } else {
                *out = Py_NewRef(Py_None);
                rc = 1;
            }
        } else if (dot) {
            int dots = contains(h, str_dot_slash, 0);
            if (dots == 0) dots = PyUnicode_READ_CHAR(h, end - 1) == '.';
            if (dots == 0) dots = contains(h, str_slash_dot, 0);
            if (dots == 0) {
                *out = PyUnicode_Concat(b->directory, h);
                rc = *out != NULL ? 1 : -1;
            } else {
                rc = dots < 0 ? -1 : relative_dots(b, h, out);
            }
        } else {
            *out = PyUnicode_Concat(b->directory, h);
            rc = *out != NULL ? 1 : -1;
        }
    }
    Py_DECREF(h);
    return rc;
}

