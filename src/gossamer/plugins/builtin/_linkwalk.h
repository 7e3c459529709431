/* Shared declarations of the _linkwalk extension's files (see _linkwalk.c). */
#ifndef GOSSAMER_LINKWALK_H
#define GOSSAMER_LINKWALK_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

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

typedef struct {
    int ready;
    int layout_ok;
    lw_node_fn first_child, next, parent, prev, last_child, first_attr, next_attr;
    lw_tag_fn tag_id;
    lw_type_fn node_type;
    lw_name_fn attr_local_name, attr_qualified_name, attr_value, element_qualified_name;
    lw_str_data_fn str_data;
    lw_str_len_fn str_length;
} lw_lexbor;

extern lw_lexbor lx; /* lexbor's functions, looked up by configure() */

/* Reads of a node through the layout check_layout() verified (each equals its lexbor accessor). */
static inline void *node_first_child(void *node) { return ((const lw_node_mirror *)node)->first_child; }
static inline void *node_next(void *node) { return ((const lw_node_mirror *)node)->next; }
static inline void *node_parent(void *node) { return ((const lw_node_mirror *)node)->parent; }
static inline uintptr_t node_tag_id(void *node) { return ((const lw_node_mirror *)node)->local_name; }
static inline int node_type(void *node) { return ((const lw_node_mirror *)node)->type; }

/* The parts of a BaseContext the fast path reads (borrowed from the walk's references). */
typedef struct {
    PyObject *base, *scheme, *origin, *path_url, *directory;
    Py_ssize_t root; /* BaseContext.root: the length of the origin + 1 */
} lw_base;

/* _linkwalk_lexbor.c: lexbor's functions, the layout check and small helpers over nodes and attributes. */
PyObject *configure(PyObject *module, PyObject *args);
PyObject *check_layout(PyObject *module, PyObject *args);
PyObject *tag_id(PyObject *module, PyObject *args);
PyObject *canonical_href(PyObject *module, PyObject *args);
int ascii_ieq(const lw_char *a, const lw_char *b, size_t n);
void *attr_by_qualified(void *node, const char *name, size_t len);
void *attr_by_local(void *node, const char *name, size_t len);
int is_nofollow(void *node);
void *next_in(void *node, void *root, int descend);
PyObject *decode(const lw_char *data, size_t len);
void *text_data(void *node, size_t *len);

/* _linkwalk_text.c: anchor texts, the page text, white space collapsed on UTF-8 bytes. */
typedef struct {
    char *out;
    size_t len, cap;
    int pending; /* white space seen after some text */
} lw_utf8;
size_t space_at(const lw_char *p, size_t left);
int utf8_reserve(lw_utf8 *t, size_t more);
int utf8_feed(lw_utf8 *t, const lw_char *data, size_t len);
PyObject *anchor_text(void *node, uintptr_t text_id, uintptr_t img_id, long long limit);
PyObject *page_text(PyObject *module, PyObject *args);
PyObject *head_parts(PyObject *module, PyObject *args);

/* _linkwalk_opening.c: parse-opening's main region and prose walk. */
PyObject *opening_words(PyObject *module, PyObject *args);
PyObject *opening_region(PyObject *module, PyObject *args);
PyObject *nesting_cut(PyObject *module, PyObject *args);

/* _linkwalk_resolve.c: LinkResolver.resolve's common shapes. */
int resolve_init(void);
int base_parts(PyObject *ctx, lw_base *b);
void base_clear(lw_base *b);
int resolve_fast(const lw_base *b, PyObject *href, PyObject **out);

#pragma GCC visibility pop

#endif
