/*
 * gossamer.plugins.builtin._linkwalk: the link walk of parse-html in C (issue 22).
 *
 * Walks a selectolax (lexbor) DOM once and returns what LinkExtractor.extract needs in bulk:
 * the outlinks (targets resolved in C for the common shapes, else by the Python resolver), their
 * anchors and tags, and the <meta>
 * elements' attributes.  The rules are those of parse_html_links.py; linkwalk_native.py is the
 * Python side (loading, the import-time checks, the fallback) and documents the contract.
 *
 * lexbor is not linked here: configure() takes the path of selectolax's already loaded
 * extension module, opens it with RTLD_NOLOAD and looks up lexbor's exported functions.
 * One struct layout is relied on, lexbor's lxb_dom_node_t: for the data of a text node (which
 * no exported function returns without a copy) and, once checked, for the tree links and tag
 * id (the exported accessors are plain reads of these fields, but a call per node costs ~25 %
 * of the walk).  check_layout() verifies every field read against the exported accessors on a
 * probe tree before anything is walked; the Python side falls back to the Python path when a
 * check fails.
 *
 * Files: _linkwalk.c (this one: the walker and the module), _linkwalk_lexbor.c (lexbor's functions,
 * the layout check, helpers over nodes), _linkwalk_text.c (anchor texts, the page text),
 * _linkwalk_opening.c (parse-opening's prose walk), _linkwalk_resolve.c
 * (LinkResolver.resolve's common shapes: absolute, //host, /path, ?query, name, leading ../ and ./;
 * the rest — control characters, dot segments inside a path — goes to the Python resolver).
 *
 * Defensive rules: every walk is iterative (no recursion, any depth), every length comes from
 * lexbor, buffers grow with overflow checks, anchor texts stop growing past the anchor limit.
 */
#include "_linkwalk.h"

/* ---------- the walker ---------- */

typedef struct {
    PyObject_HEAD
    signed char spec_of[LW_MAX_TAG]; /* tag id -> index into the specs, or -1 */
    int nspecs;
    char attr_name[16][16];          /* per spec: the attribute holding the target */
    size_t attr_len[16];
    char tag_name[16][16];           /* per spec: the tag's qualified name */
    size_t tag_len[16];
    PyObject *tag_str[16];           /* per spec: the tag as the Python str the outlinks carry */
    int nwanted;
    char wanted[8][16];              /* the attribute names of the selector list, sorted */
    size_t wanted_len[8];
    uintptr_t text_id, meta_id, img_id, a_id, link_id, form_id;
    long long limit;
    int fast_resolve;                /* the common shapes of LinkResolver.resolve in C */
    PyObject *resource_rels;         /* frozenset of <link rel> words that are not outlinks */
    PyObject *empty;
} Walker;

static void walker_dealloc(Walker *self) {
    for (int i = 0; i < self->nspecs; i++) Py_XDECREF(self->tag_str[i]);
    Py_XDECREF(self->resource_rels);
    Py_XDECREF(self->empty);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int copy_name(PyObject *bytes, char *dst, size_t *len) {
    if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) < 1 || PyBytes_GET_SIZE(bytes) > 15) {
        PyErr_SetString(PyExc_ValueError, "names must be bytes of 1-15 characters");
        return -1;
    }
    *len = (size_t)PyBytes_GET_SIZE(bytes);
    memcpy(dst, PyBytes_AS_STRING(bytes), *len);
    return 0;
}

static PyObject *walker_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *specs, *wanted, *rels;
    unsigned long long text_id, meta_id, img_id, a_id, link_id, form_id;
    long long limit;
    int fast_resolve = 1;
    static char *kwlist[] = {"specs", "wanted", "text_id", "meta_id", "img_id", "a_id", "link_id", "form_id",
                             "limit", "resource_rels", "fast_resolve", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!KKKKKKLO!|p", kwlist, &PyTuple_Type, &specs, &PyTuple_Type,
                                     &wanted, &text_id, &meta_id, &img_id, &a_id, &link_id, &form_id, &limit,
                                     &PyFrozenSet_Type, &rels, &fast_resolve))
        return NULL;
    if (!lx.ready || !lx.layout_ok) {
        PyErr_SetString(PyExc_RuntimeError, "lexbor is not configured and checked");
        return NULL;
    }
    if (PyTuple_GET_SIZE(specs) > 16 || PyTuple_GET_SIZE(wanted) > 8) {
        PyErr_SetString(PyExc_ValueError, "too many link tags or attributes");
        return NULL;
    }
    Walker *self = (Walker *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    memset(self->spec_of, -1, sizeof(self->spec_of));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(specs); i++) {
        PyObject *spec = PyTuple_GET_ITEM(specs, i);
        unsigned long long id;
        PyObject *tag, *tag_bytes, *attr;
        if (!PyArg_ParseTuple(spec, "KUO!O!", &id, &tag, &PyBytes_Type, &tag_bytes, &PyBytes_Type, &attr)) goto fail;
        if (id >= LW_MAX_TAG) {
            PyErr_SetString(PyExc_ValueError, "tag id out of range");
            goto fail;
        }
        if (copy_name(attr, self->attr_name[i], &self->attr_len[i]) < 0) goto fail;
        if (copy_name(tag_bytes, self->tag_name[i], &self->tag_len[i]) < 0) goto fail;
        Py_INCREF(tag);
        self->tag_str[i] = tag;
        self->spec_of[id] = (signed char)i;
        self->nspecs = (int)i + 1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(wanted); i++) {
        if (copy_name(PyTuple_GET_ITEM(wanted, i), self->wanted[i], &self->wanted_len[i]) < 0) goto fail;
        self->nwanted = (int)i + 1;
    }
    self->text_id = (uintptr_t)text_id;
    self->meta_id = (uintptr_t)meta_id;
    self->img_id = (uintptr_t)img_id;
    self->a_id = (uintptr_t)a_id;
    self->link_id = (uintptr_t)link_id;
    self->form_id = (uintptr_t)form_id;
    self->limit = limit;
    self->fast_resolve = fast_resolve;
    Py_INCREF(rels);
    self->resource_rels = rels;
    self->empty = PyUnicode_FromStringAndSize("", 0);
    if (self->empty == NULL) goto fail;
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* attributes of an element as selectolax's node.attributes builds them (qualified name -> value or None). */
static PyObject *attributes_dict(void *node) {
    PyObject *dict = PyDict_New();
    if (dict == NULL) return NULL;
    for (void *attr = lx.first_attr(node); attr != NULL; attr = lx.next_attr(attr)) {
        size_t n = 0, vlen = 0;
        const lw_char *name = lx.attr_qualified_name(attr, &n);
        PyObject *key = decode(name != NULL ? name : (const lw_char *)"", name != NULL ? n : 0);
        if (key == NULL) goto fail;
        const lw_char *value = lx.attr_value(attr, &vlen);
        PyObject *val = value != NULL ? decode(value, vlen) : Py_NewRef(Py_None);
        if (val == NULL || PyDict_SetItem(dict, key, val) < 0) {
            Py_DECREF(key);
            Py_XDECREF(val);
            goto fail;
        }
        Py_DECREF(key);
        Py_DECREF(val);
    }
    return dict;
fail:
    Py_DECREF(dict);
    return NULL;
}

/* A <meta>: appended once for the selector `meta`, and once more per `[attr]:not([rel~=nofollow i])` it matches. */
static int add_meta(Walker *self, void *node, PyObject *metas) {
    Py_ssize_t times = 1;
    if (self->nwanted > 0 && !is_nofollow(node)) {
        for (int i = 0; i < self->nwanted; i++)
            if (attr_by_local(node, self->wanted[i], self->wanted_len[i]) != NULL) times++;
    }
    for (Py_ssize_t i = 0; i < times; i++) { /* a dict per report, as node.attributes builds one per call */
        PyObject *dict = attributes_dict(node);
        if (dict == NULL) return -1;
        int rc = PyList_Append(metas, dict);
        Py_DECREF(dict);
        if (rc < 0) return -1;
    }
    return 0;
}

/* attrs.get(name) when it is a non-empty str: 1 with *out (a new reference), 0 when absent or empty, -1 on error. */
static int attr_text(void *node, const char *name, size_t name_len, PyObject **out) {
    void *attr = attr_by_qualified(node, name, name_len);
    size_t len = 0;
    const lw_char *v = attr != NULL ? lx.attr_value(attr, &len) : NULL;
    if (v == NULL || len == 0) return 0;
    *out = decode(v, len);
    return *out != NULL ? 1 : -1;
}

/* s.method() (no arguments), releasing s; NULL on error. */
static PyObject *call_releasing(PyObject *s, const char *method) {
    PyObject *result = PyObject_CallMethod(s, method, NULL);
    Py_DECREF(s);
    return result;
}

/* Python's (value or "").strip().lower() == "post", on an attribute looked up as attrs.get does. */
static int is_post_form(void *node) {
    PyObject *s = NULL;
    int rc = attr_text(node, "method", 6, &s);
    if (rc <= 0) return rc;
    s = call_releasing(s, "strip");
    s = s != NULL ? call_releasing(s, "lower") : NULL;
    if (s == NULL) return -1;
    int post = PyUnicode_CompareWithASCIIString(s, "post") == 0;
    Py_DECREF(s);
    return post;
}

/* A <link> whose rel names a page resource: not RESOURCE_RELS.isdisjoint(rel.lower().split()). */
static int is_resource_link(Walker *self, void *node) {
    PyObject *s = NULL;
    int rc = attr_text(node, "rel", 3, &s);
    if (rc <= 0) return rc;
    s = call_releasing(s, "lower");
    if (s == NULL) return -1;
    PyObject *words = PyUnicode_Split(s, NULL, -1);
    Py_DECREF(s);
    if (words == NULL) return -1;
    int found = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(words) && !found; i++) {
        found = PySet_Contains(self->resource_rels, PyList_GET_ITEM(words, i));
        if (found < 0) break;
    }
    Py_DECREF(words);
    return found;
}

/* href.strip() (Unicode white space), without a call when neither end is white space. */
static PyObject *strip(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n > 0 && !Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(s, 0)) && !Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(s, n - 1)))
        return Py_NewRef(s);
    return PyObject_CallMethod(s, "strip", NULL);
}

typedef struct {
    PyObject *resolve, *ctx, *seen, *targets, *anchors, *tags, *metas;
    lw_base base;
    int fast; /* the BaseContext's parts were read: common shapes are resolved in C */
} lw_out;

/* One link element: the body of LinkExtractor.extract's loop. 0 = done (kept or not), -1 = error. */
static int add_link(Walker *self, void *node, int spec, lw_out *out) {
    void *attr = attr_by_qualified(node, self->attr_name[spec], self->attr_len[spec]);
    size_t len = 0;
    const lw_char *v = attr != NULL ? lx.attr_value(attr, &len) : NULL;
    if (v == NULL || len == 0) return 0;
    size_t qlen = 0;
    const lw_char *qname = lx.element_qualified_name(node, &qlen);
    if (qname == NULL || qlen != self->tag_len[spec] || memcmp(qname, self->tag_name[spec], qlen) != 0) return 0;
    if (is_nofollow(node)) return 0;
    uintptr_t tid = node_tag_id(node);
    int rc = -1, skip;
    PyObject *href = decode(v, len), *stripped = NULL, *target = NULL, *anchor = NULL;
    if (href == NULL) return -1;
    skip = PySet_Contains(out->seen, href);
    if (skip == 0 && tid == self->link_id) skip = is_resource_link(self, node);
    else if (skip == 0 && tid == self->form_id) skip = is_post_form(node);
    if (skip != 0) {
        rc = skip < 0 ? -1 : 0;
        goto done;
    }
    stripped = strip(href);
    if (stripped == NULL) goto done;
    int resolved = out->fast ? resolve_fast(&out->base, stripped, &target) : 0;
    if (resolved < 0) goto done;
    if (resolved == 0) {
        PyObject *call_args[2] = {out->ctx, stripped};
        target = PyObject_Vectorcall(out->resolve, call_args, 2, NULL);
        if (target == NULL) goto done;
    }
    if (target == Py_None) {
        rc = PySet_Add(out->seen, href);
        goto done;
    }
    if (tid == self->a_id) {
        anchor = anchor_text(node, self->text_id, self->img_id, self->limit);
        if (anchor == NULL) goto done;
        if (PyUnicode_GET_LENGTH(anchor) == 0 && node_first_child(node) == NULL) {
            rc = 0;
            goto done;
        }
    } else {
        anchor = Py_NewRef(self->empty);
    }
    if (PySet_Add(out->seen, href) < 0 || PyList_Append(out->targets, target) < 0 ||
        PyList_Append(out->anchors, anchor) < 0 || PyList_Append(out->tags, self->tag_str[spec]) < 0)
        goto done;
    rc = 0;
done:
    Py_DECREF(href);
    Py_XDECREF(stripped);
    Py_XDECREF(target);
    Py_XDECREF(anchor);
    return rc;
}

static PyObject *walker_walk(Walker *self, PyObject *args) {
    unsigned long long root_addr;
    lw_out out = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, {NULL, NULL, NULL, NULL, NULL}, 0};
    PyObject *metas;
    if (!PyArg_ParseTuple(args, "KOOO", &root_addr, &out.resolve, &out.ctx, &metas)) return NULL;
    if (root_addr == 0) {
        PyErr_SetString(PyExc_ValueError, "no root node");
        return NULL;
    }
    if (metas != Py_None && !PyList_Check(metas)) {
        PyErr_SetString(PyExc_TypeError, "metas must be a list or None");
        return NULL;
    }
    out.metas = metas == Py_None ? NULL : metas;
    out.seen = PySet_New(NULL);
    out.targets = PyList_New(0);
    out.anchors = PyList_New(0);
    out.tags = PyList_New(0);
    PyObject *result = NULL;
    if (out.seen == NULL || out.targets == NULL || out.anchors == NULL || out.tags == NULL) goto done;
    if (self->fast_resolve) {
        out.fast = base_parts(out.ctx, &out.base);
        if (out.fast < 0) goto done;
    }
    void *root = (void *)(uintptr_t)root_addr;
    for (void *node = root; node != NULL; node = next_in(node, root, 1)) {
        uintptr_t tid = node_tag_id(node);
        if (tid == self->meta_id) {
            if (out.metas != NULL && node_type(node) == LW_ELEMENT && add_meta(self, node, out.metas) < 0)
                goto done;
            continue;
        }
        if (tid >= LW_MAX_TAG || self->spec_of[tid] < 0 || node_type(node) != LW_ELEMENT) continue;
        if (add_link(self, node, self->spec_of[tid], &out) < 0) goto done;
    }
    result = PyTuple_Pack(3, out.targets, out.anchors, out.tags);
done:
    base_clear(&out.base);
    Py_XDECREF(out.seen);
    Py_XDECREF(out.targets);
    Py_XDECREF(out.anchors);
    Py_XDECREF(out.tags);
    return result;
}

static PyMethodDef walker_methods[] = {
    {"walk", (PyCFunction)walker_walk, METH_VARARGS,
     "walk(root_address, resolve, ctx, metas) -> (targets, anchors, tags); metas (a list or None) gets the "
     "<meta> elements' attribute dicts."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WalkerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gossamer.plugins.builtin._linkwalk.Walker",
    .tp_basicsize = sizeof(Walker),
    .tp_dealloc = (destructor)walker_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A link extractor's configuration, compiled for the C walk.",
    .tp_methods = walker_methods,
    .tp_new = walker_new,
};

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(path) -> None or the reason: looks lexbor's functions up in selectolax's loaded module."},
    {"check_layout", check_layout, METH_VARARGS,
     "check_layout(element, text, data, attributes) -> None or the reason the probe tree reads wrong."},
    {"tag_id", tag_id, METH_VARARGS, "tag_id(node_address) -> lexbor's tag id of a node."},
    {"opening_words", opening_words, METH_VARARGS,
     "opening_words(region, text_id, block, skip, max_words, min_block, max_nodes, roles, words, parts, fallback) "
     "-> parse-opening's kept words, single-spaced."},
    {"opening_region", opening_region, METH_VARARGS,
     "opening_region(root, main_id, article_id) -> parse-opening's main region (0: the body, -1: CSS decides)."},
    {"canonical_href", canonical_href, METH_VARARGS,
     "canonical_href(head, link_id) -> the href of the head's first <link rel=canonical href>, or None."},
    {"head_parts", head_parts, METH_VARARGS,
     "head_parts(head, base_id, title_id, text_id) -> (the first <base>'s href or None, the first <title>'s text or None)."},
    {"nesting_cut", nesting_cut, METH_VARARGS,
     "nesting_cut(data, max_depth) -> where block elements first nest deeper than max_depth, or None "
     "(never for documents with at most 4 x max_depth '<')."},
    {"page_text", page_text, METH_VARARGS,
     "page_text(root_address, text_id, script_id, style_id) -> the text outside <script>/<style>, collapsed."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_linkwalk", "The link walk of parse-html in C (see linkwalk_native).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__linkwalk(void) {
    if (PyType_Ready(&WalkerType) < 0) return NULL;
    if (resolve_init() < 0) return NULL;
    PyObject *module = PyModule_Create(&moduledef);
    if (module == NULL) return NULL;
    if (PyModule_AddObjectRef(module, "Walker", (PyObject *)&WalkerType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
