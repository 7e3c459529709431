/*
 * gossamer.plugins.builtin._langid: language-identifier's DFA walk and feature counting in C (issue 22).
 *
 * count_features(data, rows_next, features_next, start_row, slots, features_out, counts_out) -> k
 *
 * Walks the UTF-8 bytes `data` through py3langid's automaton as langid_numpy.WalkModel holds it (per
 * transition row: `rows_next[row * 256 + byte]` the next row, `features_next[row * 256 + byte]` the
 * feature emitted, -1 for none), byte by byte from `start_row` as py3langid's visit_counts does, and
 * writes the k distinct features emitted in order of first occurrence (the order of py3langid's
 * Counter) into features_out[0:k] (int64) and how often each was emitted into counts_out[0:k]
 * (float32, exact: counts stay far below 2**24). The scoring stays in NumPy (langid_native.py).
 *
 * Buffers: rows_next uint16 or uint32, features_next int32, both of the same length (a multiple of
 * 256); slots int32 of one entry per feature, every entry -1 on entry and again on return (the
 * caller's per-thread scratch); features_out and counts_out of at least len(data) entries.
 * Every transition and feature read is bounds-checked: a damaged model raises ValueError, never reads
 * outside its arrays. The GIL is released during the walk.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static int get_buffer(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t itemsize, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (itemsize && view->itemsize != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected, not %zd", name, itemsize, view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The walk for rows of type ROW; returns k, or -1 (transition out of range) / -2 (feature out of range). */
#define WALK(ROW)                                                                                     \
    static Py_ssize_t walk_##ROW(const uint8_t *text, Py_ssize_t n, const ROW *rows, const int32_t *feats, \
                                 uint64_t entries, uint64_t row, int32_t *slots, uint64_t nslots,      \
                                 int64_t *out_features, int32_t *counts) {                             \
        Py_ssize_t k = 0;                                                                             \
        for (Py_ssize_t i = 0; i < n; i++) {                                                          \
            uint64_t at = (row << 8) | text[i];                                                       \
            if (at >= entries) return -1;                                                             \
            int32_t f = feats[at];                                                                    \
            row = rows[at];                                                                           \
            if (f >= 0) {                                                                             \
                if ((uint64_t)f >= nslots) return -2;                                                 \
                int32_t slot = slots[f];                                                              \
                if (slot < 0) {                                                                       \
                    slots[f] = (int32_t)k;                                                            \
                    out_features[k] = f;                                                              \
                    counts[k++] = 1;                                                                  \
                } else {                                                                              \
                    counts[slot]++;                                                                   \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
        return k;                                                                                     \
    }
WALK(uint16_t)
WALK(uint32_t)

static PyObject *count_features(PyObject *module, PyObject *args) {
    PyObject *data_obj, *rows_obj, *feats_obj, *slots_obj, *out_obj, *counts_obj;
    unsigned long long start_row;
    if (!PyArg_ParseTuple(args, "OOOKOOO:count_features", &data_obj, &rows_obj, &feats_obj, &start_row,
                          &slots_obj, &out_obj, &counts_obj))
        return NULL;
    Py_buffer data, rows, feats, slots, out, counts;
    if (get_buffer(data_obj, &data, 0, 1, "data") < 0) return NULL;
    if (get_buffer(rows_obj, &rows, 0, 0, "rows_next") < 0) goto fail_data;
    if (get_buffer(feats_obj, &feats, 0, 4, "features_next") < 0) goto fail_rows;
    if (get_buffer(slots_obj, &slots, 1, 4, "slots") < 0) goto fail_feats;
    if (get_buffer(out_obj, &out, 1, 8, "features_out") < 0) goto fail_slots;
    if (get_buffer(counts_obj, &counts, 1, 4, "counts_out") < 0) goto fail_out;

    Py_ssize_t n = data.len;
    uint64_t entries = (uint64_t)(feats.len / 4);
    Py_ssize_t result = -3;
    if (rows.itemsize != 2 && rows.itemsize != 4) {
        PyErr_SetString(PyExc_ValueError, "rows_next: items of 2 or 4 bytes expected");
    } else if ((uint64_t)(rows.len / rows.itemsize) != entries || entries % 256 || start_row >= entries / 256) {
        PyErr_SetString(PyExc_ValueError, "rows_next, features_next and start_row do not fit together");
    } else if (out.len / 8 < n || counts.len / 4 < n) {
        PyErr_SetString(PyExc_ValueError, "features_out and counts_out must hold len(data) entries");
    } else {
        int32_t *count_slots = (int32_t *)counts.buf;
        int32_t *slot = (int32_t *)slots.buf;
        uint64_t nslots = (uint64_t)(slots.len / 4);
        Py_BEGIN_ALLOW_THREADS
        if (rows.itemsize == 2)
            result = walk_uint16_t((const uint8_t *)data.buf, n, (const uint16_t *)rows.buf,
                                   (const int32_t *)feats.buf, entries, start_row, slot, nslots,
                                   (int64_t *)out.buf, count_slots);
        else
            result = walk_uint32_t((const uint8_t *)data.buf, n, (const uint32_t *)rows.buf,
                                   (const int32_t *)feats.buf, entries, start_row, slot, nslots,
                                   (int64_t *)out.buf, count_slots);
        /* reset the slots of the features found (on an error too: those written so far) */
        Py_ssize_t found = result >= 0 ? result : 0;
        const int64_t *features = (const int64_t *)out.buf;
        if (result < 0) { /* an error stopped the walk: clear every slot it may have set */
            for (uint64_t i = 0; i < nslots; i++) slot[i] = -1;
        }
        for (Py_ssize_t i = 0; i < found; i++) slot[features[i]] = -1;
        /* the int32 counts become float32 in place (same width, same slot; memcpy: no aliasing) */
        char *cell = (char *)counts.buf;
        for (Py_ssize_t i = 0; i < found; i++, cell += 4) {
            int32_t whole;
            memcpy(&whole, cell, 4);
            float value = (float)whole;
            memcpy(cell, &value, 4);
        }
        Py_END_ALLOW_THREADS
        if (result == -1) PyErr_SetString(PyExc_ValueError, "language model: a transition leaves its table");
        else if (result == -2) PyErr_SetString(PyExc_ValueError, "language model: a feature outside the slots");
    }
    PyBuffer_Release(&counts);
fail_out:
    PyBuffer_Release(&out);
fail_slots:
    PyBuffer_Release(&slots);
fail_feats:
    PyBuffer_Release(&feats);
fail_rows:
    PyBuffer_Release(&rows);
fail_data:
    PyBuffer_Release(&data);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromSsize_t(result);
}

static PyMethodDef methods[] = {
    {"count_features", count_features, METH_VARARGS,
     "count_features(data, rows_next, features_next, start_row, slots, features_out, counts_out) -> k: the "
     "distinct features of the walk over data in order of first occurrence, and their counts (see the module)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_langid", "language-identifier's automaton walk and feature counts in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__langid(void) { return PyModule_Create(&module_def); }
