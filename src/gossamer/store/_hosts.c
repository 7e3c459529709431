/* hosts_of in C: the host of every URL of an Arrow string array (see gossamer/store/partitioning.py).
 *
 * hosts(offsets, data, validity, offset, length, large) reads an Arrow string (int32 offsets) or large
 * string (int64 offsets, large true) array from its buffers (validity may be None) and returns the
 * buffers of the array of hosts, (offsets, data), with offsets of the same width.  The rule is
 * partitioning._HOST_PATTERN's: a scheme (an ASCII letter, then letters, digits, "+", "." or "-") and
 * "://", user info up to the last "@" before the first "/", "?" or "#", then the host: "[...]" when a
 * "]" closes it before any "/?#", else everything up to the first "/", "?", "#" or ":"; ASCII letters
 * lower-cased.  A URL without a scheme, and a null, give "".
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int is_scheme_char(unsigned char c) {
    return is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '.' || c == '-';
}

static int ends_authority(unsigned char c) { return c == '/' || c == '?' || c == '#'; }

/* The host of s[0..n) as (start, length); length 0 when there is none. */
static void host_span(const unsigned char *s, size_t n, size_t *start, size_t *length) {
    *start = 0;
    *length = 0;
    if (n == 0 || !is_alpha(s[0])) return;
    size_t i = 1;
    while (i < n && is_scheme_char(s[i])) i++;
    if (n - i < 3 || s[i] != ':' || s[i + 1] != '/' || s[i + 2] != '/') return;
    size_t a = i + 3, end = a;
    while (end < n && !ends_authority(s[end])) end++;
    size_t h = a;
    for (size_t j = end; j > a; j--) {
        if (s[j - 1] == '@') {
            h = j;
            break;
        }
    }
    if (h < n && s[h] == '[') {
        size_t j = h + 1;
        while (j < n && s[j] != ']' && !ends_authority(s[j])) j++;
        if (j < n && s[j] == ']') {
            *start = h;
            *length = j + 1 - h;
            return;
        }
    }
    size_t j = h;
    while (j < n && !ends_authority(s[j]) && s[j] != ':') j++;
    *start = h;
    *length = j - h;
}

static PyObject *hosts(PyObject *module, PyObject *args) {
    Py_buffer offsets, data, validity = {0};
    PyObject *validity_obj;
    Py_ssize_t offset, length;
    int large;
    if (!PyArg_ParseTuple(args, "y*y*Onnp", &offsets, &data, &validity_obj, &offset, &length, &large)) return NULL;
    PyObject *result = NULL, *out_offsets = NULL, *out_data = NULL;
    size_t width = large ? 8 : 4;
    if (validity_obj != Py_None && PyObject_GetBuffer(validity_obj, &validity, PyBUF_SIMPLE) < 0) goto done;
    if (offset < 0 || length < 0 || (size_t)offsets.len < (size_t)(offset + length + 1) * width ||
        (validity.buf != NULL && (size_t)validity.len * 8 < (size_t)(offset + length))) {
        PyErr_SetString(PyExc_ValueError, "buffers too short for the array");
        goto done;
    }
    const unsigned char *bytes = data.buf, *bits = validity.buf;
    const char *raw_offsets = offsets.buf;
    /* The hosts are no longer than the slice's URLs: its part of the data buffer bounds the output. */
    int64_t slice_first, slice_last;
    if (large) {
        memcpy(&slice_first, raw_offsets + offset * 8, 8);
        memcpy(&slice_last, raw_offsets + (offset + length) * 8, 8);
    } else {
        int32_t f, l;
        memcpy(&f, raw_offsets + offset * 4, 4);
        memcpy(&l, raw_offsets + (offset + length) * 4, 4);
        slice_first = f;
        slice_last = l;
    }
    if (slice_first < 0 || slice_last < slice_first || slice_last > data.len) {
        PyErr_SetString(PyExc_ValueError, "an offset lies outside the data buffer");
        goto done;
    }
    out_offsets = PyBytes_FromStringAndSize(NULL, (length + 1) * (Py_ssize_t)width);
    out_data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(slice_last - slice_first));
    if (out_offsets == NULL || out_data == NULL) goto done;
    char *write_offsets = PyBytes_AS_STRING(out_offsets);
    unsigned char *write = (unsigned char *)PyBytes_AS_STRING(out_data);
    int64_t total = 0;
    for (Py_ssize_t row = 0; row <= length; row++) {
        if (large) memcpy(write_offsets + row * 8, &total, 8);
        else {
            int32_t small = (int32_t)total;
            memcpy(write_offsets + row * 4, &small, 4);
        }
        if (row == length) break;
        Py_ssize_t at = offset + row;
        if (bits != NULL && !(bits[at >> 3] & (1u << (at & 7)))) continue;
        int64_t first, last;
        if (large) {
            memcpy(&first, raw_offsets + at * 8, 8);
            memcpy(&last, raw_offsets + (at + 1) * 8, 8);
        } else {
            int32_t f, l;
            memcpy(&f, raw_offsets + at * 4, 4);
            memcpy(&l, raw_offsets + (at + 1) * 4, 4);
            first = f;
            last = l;
        }
        if (first < slice_first || last < first || last > slice_last) {
            PyErr_SetString(PyExc_ValueError, "an offset lies outside the data buffer");
            goto done;
        }
        size_t start, span;
        host_span(bytes + first, (size_t)(last - first), &start, &span);
        const unsigned char *host = bytes + first + start;
        for (size_t k = 0; k < span; k++) {
            unsigned char c = host[k];
            write[total + (int64_t)k] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
        }
        total += (int64_t)span;
    }
    if (_PyBytes_Resize(&out_data, (Py_ssize_t)total) < 0) goto done;
    result = PyTuple_Pack(2, out_offsets, out_data);
done:
    Py_XDECREF(out_offsets);
    Py_XDECREF(out_data);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    if (validity.buf != NULL) PyBuffer_Release(&validity);
    return result;
}

static PyMethodDef methods[] = {
    {"hosts", hosts, METH_VARARGS,
     "hosts(offsets, data, validity, offset, length, large) -> (offsets, data) of the hosts' string array."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_hosts", "hosts_of in C (see gossamer.store.partitioning).", -1, methods,
};

PyMODINIT_FUNC PyInit__hosts(void) { return PyModule_Create(&moduledef); }
