/* parse-html's nesting guard in C: where block elements first nest deeper than a limit.
 *
 * The same rule as parse_html.nesting_cut (a test compares both on many documents):
 * a mark is "<", an optional "/", one of the block element names below (ASCII letters,
 * any case) and then white space, "/" or ">"; a start mark adds one to the depth, an end
 * mark takes one away (never below zero).  Documents with at most 4 x max_depth "<" are
 * never cut: lexbor's cost on them is bounded.  Needs no lexbor: it reads the raw bytes.
 */
#include "_linkwalk.h"

#define LONGEST_NAME 10

/* How many bytes of data are '<'.  A loop the compiler vectorizes (16-32 bytes a step). */
__attribute__((optimize("O3", "tree-vectorize")))
static size_t count_lt(const unsigned char *data, size_t len) {
    size_t total = 0;
    for (size_t i = 0; i < len; i++) total += data[i] == '<';
    return total;
}

static int is_delimiter(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '/' || c == '>';
}

static int lower_letter(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    return c >= 'a' && c <= 'z' ? c : 0;
}

/* Whether name (n lower-case letters) is a block element's name. */
static int is_block_name(const char *name, size_t n) {
#define IS(literal) (memcmp(name, literal, n) == 0)
    switch (n) {
    case 2: return IS("dl") || IS("ol") || IS("ul");
    case 3: return IS("div") || IS("dir") || IS("fig") || IS("nav");
    case 4: return IS("main") || IS("menu");
    case 5: return IS("aside");
    case 6: return IS("dialog") || IS("footer") || IS("header") || IS("hgroup") || IS("center");
    case 7: return IS("details") || IS("article") || IS("address") || IS("section") || IS("summary");
    case 8: return IS("fieldset");
    case 10: return IS("blockquote");
    default: return 0;
    }
#undef IS
}

/* 1: a start mark, -1: an end mark, 0: neither, for the '<' at data[0]. */
static int block_mark(const unsigned char *data, size_t len) {
    size_t i = 1;
    int step = 1;
    if (i < len && data[i] == '/') {
        step = -1;
        i++;
    }
    char name[LONGEST_NAME];
    size_t n = 0;
    int c;
    while (i < len && (c = lower_letter(data[i])) != 0) {
        if (n == LONGEST_NAME) return 0;
        name[n++] = (char)c;
        i++;
    }
    if (n < 2 || i >= len || !is_delimiter(data[i])) return 0;
    return is_block_name(name, n) ? step : 0;
}

/* nesting_cut(data, max_depth) -> the offset of the start mark that first goes deeper than max_depth, or None. */
PyObject *nesting_cut(PyObject *module, PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "y*n", &view, &max_depth)) return NULL;
    const unsigned char *data = view.buf;
    size_t len = (size_t)view.len;
    Py_ssize_t cut = -1;
    if (max_depth >= 0 && count_lt(data, len) > 4 * (size_t)max_depth) {
        Py_ssize_t depth = 0;
        const unsigned char *at = data, *end = data + len;
        while ((at = memchr(at, '<', (size_t)(end - at))) != NULL) {
            int step = block_mark(at, (size_t)(end - at));
            if (step > 0 && ++depth > max_depth) {
                cut = at - data;
                break;
            }
            if (step < 0 && depth > 0) depth--;
            at++;
        }
    }
    PyBuffer_Release(&view);
    if (cut < 0) Py_RETURN_NONE;
    return PyLong_FromSsize_t(cut);
}
