/*
 * _linkwalk: lexbor's functions, looked up in selectolax's loaded module, the check of the one struct
 * layout relied on, and small helpers over nodes and attributes (see _linkwalk.c).
 */
#include <dlfcn.h>

#include "_linkwalk.h"

lw_lexbor lx;

int ascii_ieq(const lw_char *a, const lw_char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        lw_char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return 1;
}

/* The first attribute whose qualified name is `name` (ASCII case-insensitive): selectolax's attrs.get. */
void *attr_by_qualified(void *node, const char *name, size_t len) {
    for (void *attr = lx.first_attr(node); attr != NULL; attr = lx.next_attr(attr)) {
        size_t n = 0;
        const lw_char *q = lx.attr_qualified_name(attr, &n);
        if (q != NULL && n == len && ascii_ieq((const lw_char *)name, q, len)) return attr;
    }
    return NULL;
}

/* The first attribute whose local name is `name` (exactly): lexbor's attribute selectors. */
void *attr_by_local(void *node, const char *name, size_t len) {
    for (void *attr = lx.first_attr(node); attr != NULL; attr = lx.next_attr(attr)) {
        size_t n = 0;
        const lw_char *q = lx.attr_local_name(attr, &n);
        if (q != NULL && n == len && memcmp(q, name, len) == 0) return attr;
    }
    return NULL;
}

static int is_html_space(lw_char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

/* `[rel~=WORD i]`: a `rel` whose white-space separated words hold `word` (lower case) in any ASCII case. */
static int has_rel(void *node, const char *word, size_t n) {
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
        if (i - start == n && ascii_ieq(v + start, (const lw_char *)word, n)) return 1;
    }
    return 0;
}

int is_nofollow(void *node) { return has_rel(node, "nofollow", 8); }

/* canonical_href(head, link_id) -> the href of the first `link[rel~=canonical i][href]` in the head's subtree
   ("" when it has no value), or None. */
PyObject *canonical_href(PyObject *module, PyObject *args) {
    unsigned long long addr, link_id;
    if (!PyArg_ParseTuple(args, "KK", &addr, &link_id)) return NULL;
    if (!lx.ready || !lx.layout_ok || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    void *head = (void *)(uintptr_t)addr;
    for (void *cur = next_in(head, head, 1); cur != NULL; cur = next_in(cur, head, 1)) {
        if (node_type(cur) != LW_ELEMENT || node_tag_id(cur) != (uintptr_t)link_id) continue;
        void *attr = attr_by_local(cur, "href", 4);
        if (attr == NULL || !has_rel(cur, "canonical", 9)) continue;
        size_t len = 0;
        const lw_char *value = lx.attr_value(attr, &len);
        return decode(value != NULL ? value : (const lw_char *)"", value != NULL ? len : 0);
    }
    Py_RETURN_NONE;
}

/* Pre-order successor of `node` inside the subtree of `root` (root itself excluded), or NULL. */
void *next_in(void *node, void *root, int descend) {
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

PyObject *decode(const lw_char *data, size_t len) {
    if (len > (size_t)PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "value too long");
        return NULL;
    }
    return PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "replace");
}

void *text_data(void *node, size_t *len) {
    void *str = (char *)node + sizeof(lw_node_mirror);
    *len = lx.str_length(str);
    return lx.str_data(str);
}

PyObject *configure(PyObject *module, PyObject *args) {
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    void *handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL) return PyUnicode_FromFormat("selectolax's module is not loaded: %s", dlerror());
    /* Looked up into a copy: a failed call leaves the functions of an earlier successful one. */
    lw_lexbor found = lx;
    struct {
        const char *name;
        void **slot;
    } wanted[] = {
        {"lxb_dom_node_first_child_noi", (void **)&found.first_child},
        {"lxb_dom_node_next_noi", (void **)&found.next},
        {"lxb_dom_node_prev_noi", (void **)&found.prev},
        {"lxb_dom_node_last_child_noi", (void **)&found.last_child},
        {"lxb_dom_node_parent_noi", (void **)&found.parent},
        {"lxb_dom_node_tag_id_noi", (void **)&found.tag_id},
        {"lxb_dom_node_type_noi", (void **)&found.node_type},
        {"lxb_dom_element_first_attribute_noi", (void **)&found.first_attr},
        {"lxb_dom_element_next_attribute_noi", (void **)&found.next_attr},
        {"lxb_dom_attr_local_name_noi", (void **)&found.attr_local_name},
        {"lxb_dom_attr_qualified_name", (void **)&found.attr_qualified_name},
        {"lxb_dom_attr_value_noi", (void **)&found.attr_value},
        {"lxb_dom_element_qualified_name", (void **)&found.element_qualified_name},
        {"lexbor_str_data_noi", (void **)&found.str_data},
        {"lexbor_str_length_noi", (void **)&found.str_length},
    };
    for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
        void *fn = dlsym(handle, wanted[i].name);
        if (fn == NULL) {
            return PyUnicode_FromFormat("selectolax's lexbor does not export %s", wanted[i].name);
        }
        *wanted[i].slot = fn;
    }
    /* The handle stays open: the module is selectolax's and is never unloaded while Python runs. */
    lx = found;
    lx.ready = 1;
    Py_RETURN_NONE;
}

/* check_layout(element, text, data, attributes): None when lexbor's node layout and accessors are as expected
 * on a probe <p> holding one text node `data` and the attributes `attributes` (qualified names, in order). */
PyObject *check_layout(PyObject *module, PyObject *args) {
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

PyObject *tag_id(PyObject *module, PyObject *args) {
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, "K", &addr)) return NULL;
    if (!lx.ready || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong((unsigned long long)lx.tag_id((void *)(uintptr_t)addr));
}

