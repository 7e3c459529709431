/*
 * gossamer.index._ascii_json: JSON text with every character beyond ASCII written as a \uXXXX escape (issue 22).
 *
 * ascii_json(data) -> bytes
 *
 * `data` is JSON text in UTF-8 (orjson's output). Returns the same JSON with each character that is not
 * ASCII replaced by its escape: \uXXXX for a character of the Basic Multilingual Plane, a surrogate pair
 * \uD8XX\uDCXX beyond it (RFC 8259, section 7). Outside strings JSON has no such characters, so the escapes
 * land inside strings only, and the text parses to the same values. `data` itself is returned when it is
 * ASCII already. ValueError for bytes that are not UTF-8 (a truncated or malformed sequence, a surrogate,
 * an overlong form): orjson never writes them.
 *
 * Why: the index job's driver hands every document to tantivy-py as a str. A str decoded from ASCII is
 * a copy of the bytes, and tantivy-py reads its UTF-8 in place; a str with other characters is decoded
 * to 2 or 4 bytes per character and encoded back to UTF-8 for tantivy-py (89 % of the doc web's documents
 * have at least one: a dash, a quote, a copyright sign). The escapes cost the reduce task one pass
 * over the bytes instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static const char HEX[] = "0123456789abcdef"; /* lower case, as Python's json module writes escapes */

/* The code point of the UTF-8 sequence at s[0..n), its length in *len; -1 when malformed. */
static int32_t decode(const uint8_t *s, Py_ssize_t n, int *len) {
    uint8_t b = s[0];
    int32_t cp;
    int need;
    if (b >= 0xC2 && b <= 0xDF) { cp = b & 0x1F; need = 1; }
    else if (b >= 0xE0 && b <= 0xEF) { cp = b & 0x0F; need = 2; }
    else if (b >= 0xF0 && b <= 0xF4) { cp = b & 0x07; need = 3; }
    else return -1;
    if (n < need + 1) return -1;
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF))
        || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *len = need + 1;
    return cp;
}

/* The end of the run of ASCII bytes that starts at data[i] (8 bytes at a time while they last). */
static Py_ssize_t ascii_run_end(const uint8_t *data, Py_ssize_t i, Py_ssize_t n) {
    while (i + 8 <= n) {
        uint64_t word;
        memcpy(&word, data + i, 8);
        if (word & UINT64_C(0x8080808080808080)) break;
        i += 8;
    }
    while (i < n && data[i] < 0x80) i++;
    return i;
}

static char *put_escape(char *out, uint32_t unit) {
    out[0] = '\\';
    out[1] = 'u';
    out[2] = HEX[(unit >> 12) & 0xF];
    out[3] = HEX[(unit >> 8) & 0xF];
    out[4] = HEX[(unit >> 4) & 0xF];
    out[5] = HEX[unit & 0xF];
    return out + 6;
}

static PyObject *ascii_json(PyObject *module, PyObject *arg) {
    if (!PyBytes_CheckExact(arg)) {
        PyErr_SetString(PyExc_TypeError, "ascii_json: bytes expected");
        return NULL;
    }
    const uint8_t *data = (const uint8_t *)PyBytes_AS_STRING(arg);
    Py_ssize_t n = PyBytes_GET_SIZE(arg);
    Py_ssize_t first = ascii_run_end(data, 0, n);
    if (first == n) {
        Py_INCREF(arg);
        return arg;
    }
    /* the size of the result: each sequence becomes one escape (two beyond the plane) */
    Py_ssize_t size = first;
    for (Py_ssize_t i = first; i < n;) {
        if (data[i] < 0x80) {
            Py_ssize_t end = ascii_run_end(data, i, n);
            size += end - i;
            i = end;
            continue;
        }
        int len = 0;
        int32_t cp = decode(data + i, n - i, &len);
        if (cp < 0) {
            PyErr_Format(PyExc_ValueError, "ascii_json: bytes that are not UTF-8 at offset %zd", i);
            return NULL;
        }
        size += cp >= 0x10000 ? 12 : 6;
        i += len;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL) return NULL;
    char *out = PyBytes_AS_STRING(result);
    memcpy(out, data, (size_t)first);
    out += first;
    for (Py_ssize_t i = first; i < n;) {
        Py_ssize_t run = ascii_run_end(data, i, n);
        if (run > i) {
            memcpy(out, data + i, (size_t)(run - i));
            out += run - i;
            i = run;
            if (i == n) break;
        }
        int len = 0;
        int32_t cp = decode(data + i, n - i, &len); /* valid: checked above */
        if (cp >= 0x10000) {
            uint32_t v = (uint32_t)cp - 0x10000;
            out = put_escape(out, 0xD800 + (v >> 10));
            out = put_escape(out, 0xDC00 + (v & 0x3FF));
        } else {
            out = put_escape(out, (uint32_t)cp);
        }
        i += len;
    }
    return result;
}

static PyMethodDef methods[] = {
    {"ascii_json", ascii_json, METH_O,
     "ascii_json(data) -> bytes: the JSON text data (UTF-8) with every character beyond ASCII as a \\u escape."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_ascii_json", "JSON text with every character beyond ASCII escaped.", -1, methods,
};

PyMODINIT_FUNC PyInit__ascii_json(void) { return PyModule_Create(&module_def); }
