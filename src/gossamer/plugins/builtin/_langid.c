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
#include <math.h>
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


/* acc += the rows weighted (4 at a time: acc is read and written once per 4 rows): the scoring's inner loop,
 * vectorized (AVX2 and FMA where the CPU has them, chosen at load time; SSE2 otherwise). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VECTORIZED __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("O3", "tree-vectorize")))
#else
#define VECTORIZED
#endif
VECTORIZED
static void add_rows(double *restrict acc, const float *const *rows, const double *weights, Py_ssize_t n,
                     Py_ssize_t classes) {
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *restrict r0 = rows[i], *restrict r1 = rows[i + 1], *restrict r2 = rows[i + 2],
                    *restrict r3 = rows[i + 3];
        double w0 = weights[i], w1 = weights[i + 1], w2 = weights[i + 2], w3 = weights[i + 3];
        for (Py_ssize_t c = 0; c < classes; c++)
            acc[c] += (w0 * (double)r0[c] + w1 * (double)r1[c]) + (w2 * (double)r2[c] + w3 * (double)r3[c]);
    }
    for (; i < n; i++) {
        const float *restrict r = rows[i];
        double w = weights[i];
        for (Py_ssize_t c = 0; c < classes; c++) acc[c] += w * (double)r[c];
    }
}

/* log1p of the small whole counts most features have, computed once (log1p is ~20 ns a call). */
enum { SMALL_COUNTS = 64 };
static double small_log1p[SMALL_COUNTS];

static inline double weight_of(float count) {
    int whole = (int)count;
    return whole >= 0 && whole < SMALL_COUNTS && (float)whole == count ? small_log1p[whole] : log1p((double)count);
}

/* The scoring of score_features (see the top of the file); -1 when a feature or alias is out of range. */
static Py_ssize_t score(const int64_t *features, const float *counts, Py_ssize_t k, const float *table,
                        Py_ssize_t rows, Py_ssize_t classes, const float *prior, Py_ssize_t nbytes,
                        const int64_t *keeps, const int64_t *folds, Py_ssize_t pairs, double *acc, float *out) {
    for (Py_ssize_t c = 0; c < classes; c++) acc[c] = 0.0;
    enum { BLOCK = 64 };
    const float *rows_of[BLOCK];
    double weights[BLOCK];
    for (Py_ssize_t start = 0; start < k; start += BLOCK) {
        Py_ssize_t n = k - start < BLOCK ? k - start : BLOCK;
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t f = features[start + i];
            if (f < 0 || f >= rows) return -1;
            rows_of[i] = table + f * classes;
            weights[i] = weight_of(counts[start + i]);
            for (Py_ssize_t b = 0; b < classes * 4; b += 64) __builtin_prefetch((const char *)rows_of[i] + b);
        }
        add_rows(acc, rows_of, weights, n, classes);
    }
    double scale = 1.0 / sqrt((double)(nbytes > 0 ? nbytes : 1));
    double top = -INFINITY;
    for (Py_ssize_t c = 0; c < classes; c++) {
        acc[c] = k ? (acc[c] + (double)prior[c]) * scale : 0.0; /* no feature: uniform, as py3langid */
        if (acc[c] > top) top = acc[c];
    }
    double total = 0.0;
    for (Py_ssize_t c = 0; c < classes; c++) {
        acc[c] = exp(acc[c] - top);
        total += acc[c];
    }
    for (Py_ssize_t c = 0; c < classes; c++) acc[c] /= total;
    for (Py_ssize_t j = 0; j < pairs; j++) {
        if (keeps[j] < 0 || keeps[j] >= classes || folds[j] < 0 || folds[j] >= classes) return -1;
        acc[keeps[j]] += acc[folds[j]];
        acc[folds[j]] = 0.0;
    }
    Py_ssize_t best = 0;
    for (Py_ssize_t c = 0; c < classes; c++) {
        out[c] = (float)acc[c];
        if (out[c] > out[best]) best = c;
    }
    return best;
}

static PyObject *score_features(PyObject *module, PyObject *args) {
    PyObject *feats_obj, *counts_obj, *table_obj, *prior_obj, *keeps_obj, *folds_obj, *out_obj;
    Py_ssize_t k, nbytes;
    if (!PyArg_ParseTuple(args, "OOnOOnOOO:score_features", &feats_obj, &counts_obj, &k, &table_obj, &prior_obj,
                          &nbytes, &keeps_obj, &folds_obj, &out_obj))
        return NULL;
    Py_buffer feats, counts, table, prior, keeps, folds, out;
    Py_ssize_t result = -2;
    if (get_buffer(feats_obj, &feats, 0, 8, "features") < 0) return NULL;
    if (get_buffer(counts_obj, &counts, 0, 4, "counts") < 0) goto fail_feats;
    if (PyObject_GetBuffer(table_obj, &table, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0) goto fail_counts;
    if (get_buffer(prior_obj, &prior, 0, 4, "prior") < 0) goto fail_table;
    if (get_buffer(keeps_obj, &keeps, 0, 8, "keeps") < 0) goto fail_prior;
    if (get_buffer(folds_obj, &folds, 0, 8, "folds") < 0) goto fail_keeps;
    if (get_buffer(out_obj, &out, 1, 4, "scores_out") < 0) goto fail_folds;
    if (table.ndim != 2 || table.itemsize != 4 || strcmp(table.format ? table.format : "B", "f") != 0) {
        PyErr_SetString(PyExc_ValueError, "table: a 2-d float32 array expected");
    } else if (k < 0 || feats.len / 8 < k || counts.len / 4 < k) {
        PyErr_SetString(PyExc_ValueError, "features and counts must hold k entries");
    } else if (prior.len / 4 != table.shape[1] || out.len / 4 != table.shape[1] || keeps.len != folds.len
               || strcmp(prior.format ? prior.format : "B", "f") != 0) {
        PyErr_SetString(PyExc_ValueError, "prior, scores_out and the table's classes do not fit together");
    } else if (table.shape[1] < 1) {
        PyErr_SetString(PyExc_ValueError, "table: no classes");
    } else {
        Py_ssize_t classes = table.shape[1];
        double *acc = PyMem_RawMalloc((size_t)classes * sizeof(double));
        if (acc == NULL) {
            PyErr_NoMemory();
        } else {
            Py_BEGIN_ALLOW_THREADS
            result = score((const int64_t *)feats.buf, (const float *)counts.buf, k, (const float *)table.buf,
                           table.shape[0], classes, (const float *)prior.buf, nbytes, (const int64_t *)keeps.buf,
                           (const int64_t *)folds.buf, keeps.len / 8, acc, (float *)out.buf);
            Py_END_ALLOW_THREADS
            PyMem_RawFree(acc);
            if (result == -1) PyErr_SetString(PyExc_ValueError, "language model: a feature or alias outside the table");
        }
    }
    PyBuffer_Release(&out);
fail_folds:
    PyBuffer_Release(&folds);
fail_keeps:
    PyBuffer_Release(&keeps);
fail_prior:
    PyBuffer_Release(&prior);
fail_table:
    PyBuffer_Release(&table);
fail_counts:
    PyBuffer_Release(&counts);
fail_feats:
    PyBuffer_Release(&feats);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromSsize_t(result);
}

static PyMethodDef methods[] = {
    {"count_features", count_features, METH_VARARGS,
     "count_features(data, rows_next, features_next, start_row, slots, features_out, counts_out) -> k: the "
     "distinct features of the walk over data in order of first occurrence, and their counts (see the module)."},
    {"score_features", score_features, METH_VARARGS,
     "score_features(features, counts, k, table, prior, nbytes, keeps, folds, scores_out) -> best: the classes' "
     "probabilities of the counted features into scores_out, and the most probable class (see the module)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_langid", "language-identifier's automaton walk, feature counts and scoring in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__langid(void) {
    for (int i = 0; i < SMALL_COUNTS; i++) small_log1p[i] = log1p((double)i);
    return PyModule_Create(&module_def);
}
