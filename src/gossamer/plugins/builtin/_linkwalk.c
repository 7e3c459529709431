/*
 * gossamer.plugins.builtin._linkwalk: the link walk of parse-html in C (issue 22).
 *
 * Walks a selectolax (lexbor) DOM once and returns what LinkExtractor.extract needs in bulk:
 * the outlinks (targets resolved by a Python callable), their anchors and tags, and the <meta>
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
 * Defensive rules: every walk is iterative (no recursion, any depth), every length comes from
 * lexbor, buffers grow with overflow checks, anchor texts stop growing past the anchor limit.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef unsigned char lw_char;
typedef void *(*lw_node_fn)(void *);
typedef uintptr_t (*lw_tag_fn)(void *);
typedef int (*lw_type_fn)(void *);
typedef const lw_char *(*lw_name_fn)(void *, size_t *);
typedef lw_char *(*lw_str_data_fn)(void *);
typedef size_t (*lw_str_len_fn)(void *);

/* lexbor 2.x's lxb_dom_node_t, as selectolax's lexbor.pxd declares it; check_layout() verifies it. */
typedef struct {
    void *events;
    uintptr_t local_name;
    uintptr_t prefix;
    uintptr_t ns;
    void *owner_document;
    void *next;
    void *prev;
    void *parent;
    void *first_child;
    void *last_child;
    void *user;
    int type;
} lw_node_mirror;

#define LW_ELEMENT 1
#define LW_TEXT 3
#define LW_MAX_TAG 256 /* lexbor's built-in tag ids are below this; custom tags are larger and never link tags */

static struct {
    int ready;
    int layout_ok;
    lw_node_fn first_child, next, parent, prev, last_child, first_attr, next_attr;
    lw_tag_fn tag_id;
    lw_type_fn node_type;
    lw_name_fn attr_local_name, attr_qualified_name, attr_value, element_qualified_name;
    lw_str_data_fn str_data;
    lw_str_len_fn str_length;
} lx;

/* Reads of a node through the layout check_layout() verified (each equals its lexbor accessor). */
static inline void *node_first_child(void *node) { return ((const lw_node_mirror *)node)->first_child; }
static inline void *node_next(void *node) { return ((const lw_node_mirror *)node)->next; }
static inline void *node_parent(void *node) { return ((const lw_node_mirror *)node)->parent; }
static inline uintptr_t node_tag_id(void *node) { return ((const lw_node_mirror *)node)->local_name; }
static inline int node_type(void *node) { return ((const lw_node_mirror *)node)->type; }

/* ---------- small helpers over lexbor ---------- */

static int ascii_ieq(const lw_char *a, const lw_char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        lw_char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return 1;
}

/* The first attribute whose qualified name is `name` (ASCII case-insensitive): selectolax's attrs.get. */
static void *attr_by_qualified(void *node, const char *name, size_t len) {
    for (void *attr = lx.first_attr(node); attr != NULL; attr = lx.next_attr(attr)) {
        size_t n = 0;
        const lw_char *q = lx.attr_qualified_name(attr, &n);
        if (q != NULL && n == len && ascii_ieq((const lw_char *)name, q, len)) return attr;
    }
    return NULL;
}

/* The first attribute whose local name is `name` (exactly): lexbor's attribute selectors. */
static void *attr_by_local(void *node, const char *name, size_t len) {
    for (void *attr = lx.first_attr(node); attr != NULL; attr = lx.next_attr(attr)) {
        size_t n = 0;
        const lw_char *q = lx.attr_local_name(attr, &n);
        if (q != NULL && n == len && memcmp(q, name, len) == 0) return attr;
    }
    return NULL;
}

static int is_html_space(lw_char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

/* `[rel~=nofollow i]`: a `rel` whose white-space separated words hold "nofollow" in any ASCII case. */
static int is_nofollow(void *node) {
    void *attr = attr_by_local(node, "rel", 3);
    if (attr == NULL) return 0;
    size_t len = 0;
    const lw_char *v = lx.attr_value(attr, &len);
    if (v == NULL) return 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && is_html_space(v[i])) i++;
        size_t start = i;
        while (i < len && !is_html_space(v[i])) i++;
        if (i - start == 8 && ascii_ieq(v + start, (const lw_char *)"nofollow", 8)) return 1;
    }
    return 0;
}

/* Pre-order successor of `node` inside the subtree of `root` (root itself excluded), or NULL. */
static void *next_in(void *node, void *root, int descend) {
    if (descend) {
        void *child = node_first_child(node);
        if (child != NULL) return child;
    }
    while (node != root) {
        void *sibling = node_next(node);
        if (sibling != NULL) return sibling;
        node = node_parent(node);
        if (node == NULL) return NULL;
    }
    return NULL;
}

static PyObject *decode(const lw_char *data, size_t len) {
    if (len > (size_t)PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "value too long");
        return NULL;
    }
    return PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "replace");
}

/* ---------- anchor text: white space collapsed as " ".join(text.split()), cut to the limit ---------- */

typedef struct {
    Py_UCS4 *out;
    size_t len, cap;
    long long limit; /* < 0: none */
    int pending;     /* white space seen after some text */
    int full;        /* more than `limit` characters collected: the rest cannot change the result */
} lw_text;

static int text_put(lw_text *t, Py_UCS4 c) {
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        if (cap < t->cap || cap > ((size_t)PY_SSIZE_T_MAX) / sizeof(Py_UCS4)) {
            PyErr_NoMemory();
            return -1;
        }
        Py_UCS4 *grown = PyMem_Realloc(t->out, cap * sizeof(Py_UCS4));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->out = grown;
        t->cap = cap;
    }
    t->out[t->len++] = c;
    if (t->limit >= 0 && t->len > (size_t)t->limit) t->full = 1;
    return 0;
}

static int text_feed(lw_text *t, Py_UCS4 c) {
    if (Py_UNICODE_ISSPACE(c)) {
        if (t->len > 0) t->pending = 1;
        return 0;
    }
    if (t->pending) {
        t->pending = 0;
        if (text_put(t, ' ') < 0) return -1;
        if (t->full) return 0;
    }
    return text_put(t, c);
}

/* Feeds one fragment of UTF-8 (decoded as selectolax does: invalid bytes become U+FFFD). */
static int text_feed_bytes(lw_text *t, const lw_char *data, size_t len) {
    size_t i = 0;
    for (; i < len && data[i] < 0x80; i++) {
        if (t->full) return 0;
        if (text_feed(t, data[i]) < 0) return -1;
    }
    if (i == len || t->full) return 0;
    /* Non-ASCII: the rest of the fragment is decoded whole (a sequence never starts mid-character here). */
    PyObject *s = decode(data + i, len - i);
    if (s == NULL) return -1;
    int kind = PyUnicode_KIND(s);
    const void *chars = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t k = 0; k < n && !t->full; k++) {
        if (text_feed(t, PyUnicode_READ(kind, chars, k)) < 0) {
            Py_DECREF(s);
            return -1;
        }
    }
    Py_DECREF(s);
    return 0;
}

static PyObject *text_result(lw_text *t) {
    size_t n = t->len;
    if (t->limit >= 0 && n > (size_t)t->limit) {
        n = (size_t)t->limit;
        while (n > 0 && t->out[n - 1] == ' ') n--;
    }
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t->out ? (const void *)t->out : (const void *)"", (Py_ssize_t)n);
}

static void *text_data(void *node, size_t *len) {
    void *str = (char *)node + sizeof(lw_node_mirror);
    *len = lx.str_length(str);
    return lx.str_data(str);
}

/* Text of the descendants of `node` (text nodes joined by a space), collapsed and cut; then an image's alt. */
static PyObject *anchor_text(void *node, uintptr_t text_id, uintptr_t img_id, long long limit) {
    lw_text t = {NULL, 0, 0, limit, 0, 0};
    PyObject *result = NULL;
    int count = 0;
    for (void *cur = next_in(node, node, 1); cur != NULL && !t.full; cur = next_in(cur, node, 1)) {
        if (node_tag_id(cur) != text_id) continue;
        size_t len = 0;
        const lw_char *data = text_data(cur, &len);
        if (data == NULL) continue;
        if (count++ > 0 && text_feed(&t, ' ') < 0) goto done;
        if (text_feed_bytes(&t, data, len) < 0) goto done;
    }
    if (t.len == 0) {
        /* css_first("img[alt]"), then attributes.get("alt") (the last attribute named exactly alt). */
        for (void *cur = next_in(node, node, 1); cur != NULL; cur = next_in(cur, node, 1)) {
            if (node_tag_id(cur) != img_id || node_type(cur) != LW_ELEMENT || attr_by_local(cur, "alt", 3) == NULL)
                continue;
            const lw_char *alt = NULL;
            size_t alt_len = 0;
            for (void *attr = lx.first_attr(cur); attr != NULL; attr = lx.next_attr(attr)) {
                size_t n = 0;
                const lw_char *q = lx.attr_qualified_name(attr, &n);
                if (q != NULL && n == 3 && memcmp(q, "alt", 3) == 0) {
                    size_t vlen = 0;
                    alt = lx.attr_value(attr, &vlen);
                    alt_len = alt != NULL ? vlen : 0;
                }
            }
            t.pending = 0;
            if (alt != NULL && text_feed_bytes(&t, alt, alt_len) < 0) goto done;
            break;
        }
    }
    result = text_result(&t);
done:
    PyMem_Free(t.out);
    return result;
}

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
    static char *kwlist[] = {"specs", "wanted", "text_id", "meta_id", "img_id", "a_id", "link_id", "form_id",
                             "limit", "resource_rels", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!KKKKKKLO!", kwlist, &PyTuple_Type, &specs, &PyTuple_Type,
                                     &wanted, &text_id, &meta_id, &img_id, &a_id, &link_id, &form_id, &limit,
                                     &PyFrozenSet_Type, &rels))
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

/* Python's (value or "").strip().lower() == "post", on an attribute looked up as attrs.get does. */
static int is_post_form(void *node) {
    void *attr = attr_by_qualified(node, "method", 6);
    size_t len = 0;
    const lw_char *v = attr != NULL ? lx.attr_value(attr, &len) : NULL;
    if (v == NULL || len == 0) return 0;
    PyObject *s = decode(v, len);
    if (s == NULL) return -1;
    PyObject *stripped = PyObject_CallMethod(s, "strip", NULL);
    Py_DECREF(s);
    if (stripped == NULL) return -1;
    PyObject *lowered = PyObject_CallMethod(stripped, "lower", NULL);
    Py_DECREF(stripped);
    if (lowered == NULL) return -1;
    int post = PyUnicode_CompareWithASCIIString(lowered, "post") == 0;
    Py_DECREF(lowered);
    return post;
}

/* A <link> whose rel names a page resource: not RESOURCE_RELS.isdisjoint(rel.lower().split()). */
static int is_resource_link(Walker *self, void *node) {
    void *attr = attr_by_qualified(node, "rel", 3);
    size_t len = 0;
    const lw_char *v = attr != NULL ? lx.attr_value(attr, &len) : NULL;
    if (v == NULL || len == 0) return 0;
    PyObject *s = decode(v, len);
    if (s == NULL) return -1;
    PyObject *lowered = PyObject_CallMethod(s, "lower", NULL);
    Py_DECREF(s);
    if (lowered == NULL) return -1;
    PyObject *words = PyUnicode_Split(lowered, NULL, -1);
    Py_DECREF(lowered);
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
    PyObject *call_args[2] = {out->ctx, stripped};
    target = PyObject_Vectorcall(out->resolve, call_args, 2, NULL);
    if (target == NULL) goto done;
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
    lw_out out = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
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

/* ---------- configuration and the import-time checks ---------- */

static PyObject *configure(PyObject *module, PyObject *args) {
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    void *handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL) return PyUnicode_FromFormat("selectolax's module is not loaded: %s", dlerror());
    struct {
        const char *name;
        void **slot;
    } wanted[] = {
        {"lxb_dom_node_first_child_noi", (void **)&lx.first_child},
        {"lxb_dom_node_next_noi", (void **)&lx.next},
        {"lxb_dom_node_prev_noi", (void **)&lx.prev},
        {"lxb_dom_node_last_child_noi", (void **)&lx.last_child},
        {"lxb_dom_node_parent_noi", (void **)&lx.parent},
        {"lxb_dom_node_tag_id_noi", (void **)&lx.tag_id},
        {"lxb_dom_node_type_noi", (void **)&lx.node_type},
        {"lxb_dom_element_first_attribute_noi", (void **)&lx.first_attr},
        {"lxb_dom_element_next_attribute_noi", (void **)&lx.next_attr},
        {"lxb_dom_attr_local_name_noi", (void **)&lx.attr_local_name},
        {"lxb_dom_attr_qualified_name", (void **)&lx.attr_qualified_name},
        {"lxb_dom_attr_value_noi", (void **)&lx.attr_value},
        {"lxb_dom_element_qualified_name", (void **)&lx.element_qualified_name},
        {"lexbor_str_data_noi", (void **)&lx.str_data},
        {"lexbor_str_length_noi", (void **)&lx.str_length},
    };
    for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
        void *fn = dlsym(handle, wanted[i].name);
        if (fn == NULL) {
            lx.ready = 0;
            return PyUnicode_FromFormat("selectolax's lexbor does not export %s", wanted[i].name);
        }
        *wanted[i].slot = fn;
    }
    /* The handle stays open: the module is selectolax's and is never unloaded while Python runs. */
    lx.ready = 1;
    Py_RETURN_NONE;
}

/* check_layout(element, text, data, attributes): None when lexbor's node layout and accessors are as expected
 * on a probe <p> holding one text node `data` and the attributes `attributes` (qualified names, in order). */
static PyObject *check_layout(PyObject *module, PyObject *args) {
    unsigned long long element_addr, text_addr;
    const char *data;
    Py_ssize_t data_len;
    PyObject *names;
    if (!PyArg_ParseTuple(args, "KKy#O!", &element_addr, &text_addr, &data, &data_len, &PyTuple_Type, &names))
        return NULL;
    /* A failed check leaves an earlier success in force: the layout cannot change while the process runs. */
    if (!lx.ready) return PyUnicode_FromString("not configured");
    void *element = (void *)(uintptr_t)element_addr, *text = (void *)(uintptr_t)text_addr;
    if (element == NULL || text == NULL) return PyUnicode_FromString("no probe nodes");
    if (lx.node_type(element) != LW_ELEMENT || lx.node_type(text) != LW_TEXT)
        return PyUnicode_FromString("node types differ");
    if (lx.first_child(element) != text || lx.last_child(element) != text || lx.parent(text) != element)
        return PyUnicode_FromString("probe tree differs");
    const lw_node_mirror *m = (const lw_node_mirror *)text;
    const lw_node_mirror *e = (const lw_node_mirror *)element;
    if (m->parent != element || m->next != lx.next(text) || m->prev != lx.prev(text) || m->first_child != NULL ||
        m->type != LW_TEXT || e->first_child != text || e->last_child != text || e->type != LW_ELEMENT ||
        e->parent != lx.parent(element) || e->next != lx.next(element) || e->next == NULL || e->prev != lx.prev(element) || m->local_name != lx.tag_id(text) ||
        e->local_name != lx.tag_id(element))
        return PyUnicode_FromString("lxb_dom_node_t layout differs");
    size_t len = 0;
    const lw_char *got = text_data(text, &len);
    if (len != (size_t)data_len || got == NULL || memcmp(got, data, len) != 0)
        return PyUnicode_FromString("text node data differs");
    void *attr = lx.first_attr(element);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++, attr = lx.next_attr(attr)) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        size_t n = 0;
        const lw_char *q = attr != NULL ? lx.attr_qualified_name(attr, &n) : NULL;
        if (!PyBytes_Check(name) || q == NULL || (Py_ssize_t)n != PyBytes_GET_SIZE(name) ||
            memcmp(q, PyBytes_AS_STRING(name), n) != 0)
            return PyUnicode_FromString("attribute list differs");
    }
    if (attr != NULL) return PyUnicode_FromString("attribute list differs");
    lx.layout_ok = 1;
    Py_RETURN_NONE;
}

static PyObject *tag_id(PyObject *module, PyObject *args) {
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, "K", &addr)) return NULL;
    if (!lx.ready || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong((unsigned long long)lx.tag_id((void *)(uintptr_t)addr));
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(path) -> None or the reason: looks lexbor's functions up in selectolax's loaded module."},
    {"check_layout", check_layout, METH_VARARGS,
     "check_layout(element, text, data, attributes) -> None or the reason the probe tree reads wrong."},
    {"tag_id", tag_id, METH_VARARGS, "tag_id(node_address) -> lexbor's tag id of a node."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_linkwalk", "The link walk of parse-html in C (see linkwalk_native).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__linkwalk(void) {
    if (PyType_Ready(&WalkerType) < 0) return NULL;
    PyObject *module = PyModule_Create(&moduledef);
    if (module == NULL) return NULL;
    if (PyModule_AddObjectRef(module, "Walker", (PyObject *)&WalkerType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
