/* The outlink filter's per-link loop in C (see gossamer/crawl/parse/outlink_keep.py).
 *
 * keep(to_urls, start, memo, from_url, source, mode, exempt, seen, kept_urls, kept, limit) walks
 * to_urls from index start and, for each link, applies OutlinkFilter.outlinks's rules to the memo's
 * entry (processed URL or None, origin or None): the link to the page itself, dropped targets,
 * targets already kept (seen), the db.ignore.* scope (mode bit 1: ignore external links, bit 2:
 * ignore internal ones; exempt(from_url, raw) decides on an external link, None: never exempted).
 * A kept link's URL goes into seen and kept_urls, its index into kept.  Returns -1 when every link
 * was walked or limit links are kept, else the index of the first link whose raw URL is not in the
 * memo: the caller computes that entry and calls again from there.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define IGNORE_EXTERNAL 1
#define IGNORE_INTERNAL 2

/* 1: keep, 0: drop, -1: error. */
static int in_scope(PyObject *from_url, PyObject *raw, PyObject *source, PyObject *target, long mode,
                    PyObject *exempt) {
    if (target == Py_None) return 0;
    int internal = 0;
    if (source != Py_None) {
        internal = PyObject_RichCompareBool(source, target, Py_EQ);
        if (internal < 0) return -1;
    }
    if ((mode & IGNORE_EXTERNAL) && !internal) {
        if (exempt == Py_None) return 0;
        PyObject *verdict = PyObject_CallFunctionObjArgs(exempt, from_url, raw, NULL);
        if (verdict == NULL) return -1;
        int truth = PyObject_IsTrue(verdict);
        Py_DECREF(verdict);
        return truth;
    }
    return !((mode & IGNORE_INTERNAL) && internal);
}

static PyObject *keep(PyObject *module, PyObject *args) {
    PyObject *to_urls, *memo, *from_url, *source, *exempt, *seen, *kept_urls, *kept;
    Py_ssize_t start, limit;
    long mode;
    if (!PyArg_ParseTuple(args, "O!nO!OOlOO!O!O!n", &PyList_Type, &to_urls, &start, &PyDict_Type, &memo, &from_url,
                          &source, &mode, &exempt, &PySet_Type, &seen, &PyList_Type, &kept_urls, &PyList_Type,
                          &kept, &limit)) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(to_urls);
    for (Py_ssize_t i = start < 0 ? 0 : start; i < count; i++) {
        PyObject *raw = PyList_GET_ITEM(to_urls, i);
        int same = PyObject_RichCompareBool(raw, from_url, Py_EQ);
        if (same < 0) return NULL;
        if (same) continue;
        PyObject *entry = PyDict_GetItemWithError(memo, raw); /* borrowed */
        if (entry == NULL) {
            if (PyErr_Occurred()) return NULL;
            return PyLong_FromSsize_t(i);
        }
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_SetString(PyExc_TypeError, "a memo entry must be a (url, origin) tuple");
            return NULL;
        }
        PyObject *url = PyTuple_GET_ITEM(entry, 0);
        if (url == Py_None) continue;
        int known = PySet_Contains(seen, url);
        if (known < 0) return NULL;
        if (known) continue;
        if (mode & (IGNORE_EXTERNAL | IGNORE_INTERNAL)) {
            int keep_it = in_scope(from_url, raw, source, PyTuple_GET_ITEM(entry, 1), mode, exempt);
            if (keep_it < 0) return NULL;
            if (!keep_it) continue;
        }
        PyObject *index = PyLong_FromSsize_t(i);
        if (index == NULL) return NULL;
        int failed = PySet_Add(seen, url) < 0 || PyList_Append(kept_urls, url) < 0 || PyList_Append(kept, index) < 0;
        Py_DECREF(index);
        if (failed) return NULL;
        if (PyList_GET_SIZE(kept) >= limit) break;
    }
    return PyLong_FromLong(-1);
}

static PyMethodDef methods[] = {
    {"keep", keep, METH_VARARGS,
     "keep(to_urls, start, memo, from_url, source, mode, exempt, seen, kept_urls, kept, limit) -> -1 when done, "
     "else the index of the first link missing from the memo."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_outlinks", "The outlink filter's per-link loop in C (see outlink_keep).", -1, methods,
};

PyMODINIT_FUNC PyInit__outlinks(void) { return PyModule_Create(&moduledef); }
