/* _linkwalk: the anchor text of a link element, as parse_html_links.anchor_text computes it (see _linkwalk.c). */
#include "_linkwalk.h"

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

#ifndef LW_TEXT_CHUNK
#define LW_TEXT_CHUNK 4096 /* >= 4 */
#endif

/* Feeds one fragment of UTF-8 (decoded as selectolax does: invalid bytes become U+FFFD). */
static int text_feed_bytes(lw_text *t, const lw_char *data, size_t len) {
    size_t i = 0;
    for (; i < len && data[i] < 0x80; i++) {
        if (t->full) return 0;
        if (text_feed(t, data[i]) < 0) return -1;
    }
    if (i == len || t->full) return 0;
    /* Non-ASCII: the rest is decoded in chunks of at most LW_TEXT_CHUNK bytes, so an anchor stops decoding
       soon after its limit is reached (a huge text node is not decoded whole for each enclosing anchor).  A
       chunk ends before a lead or ASCII byte, or after four continuation bytes in a row: at such a cut the
       "replace" decoding gives exactly what decoding the whole fragment gives. */
    while (i < len && !t->full) {
        size_t chunk = len - i < LW_TEXT_CHUNK ? len - i : LW_TEXT_CHUNK;
        if (i + chunk < len) {
            size_t q = chunk;
            while (q > chunk - 3 && (data[i + q] & 0xC0) == 0x80) q--;
            if ((data[i + q] & 0xC0) != 0x80) chunk = q;
        }
        PyObject *s = decode(data + i, chunk);
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
        i += chunk;
    }
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


/* Text of the descendants of `node` (text nodes joined by a space), collapsed and cut; then an image's alt. */
PyObject *anchor_text(void *node, uintptr_t text_id, uintptr_t img_id, long long limit) {
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


/* ---------- page text: the text nodes outside <script> and <style>, white space collapsed, on UTF-8 ---------- */

/* Bytes of the str.isspace() character starting at p (0: none).  ASCII: \t \n \v \f \r, 0x1C-0x1F and
   the space; beyond ASCII: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and
   U+3000 (a test checks this list against every code point).  Each starts with a lead byte, which no
   other character's encoding holds, so the bytes match here exactly when the decoded text has the space. */
size_t space_at(const lw_char *p, size_t left) {
    lw_char c = p[0];
    if (c < 0x80) return (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) ? 1 : 0;
    if (c < 0xC2 || c > 0xE3) return 0;
    if (c == 0xC2) return left >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
    if (left < 3) return 0;
    if (c == 0xE1) return p[1] == 0x9A && p[2] == 0x80 ? 3 : 0;
    if (c == 0xE2) {
        if (p[1] == 0x80) return (p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3 : 0;
        return p[1] == 0x81 && p[2] == 0x9F ? 3 : 0;
    }
    return c == 0xE3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0;
}

int utf8_reserve(lw_utf8 *t, size_t more) {
    if (t->cap - t->len >= more) return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap - t->len < more) {
        if (cap > ((size_t)PY_SSIZE_T_MAX) / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *grown = PyMem_Realloc(t->out, cap);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->out = grown;
    t->cap = cap;
    return 0;
}

/* Appends one text's bytes: runs of white space become one pending space, written only before the next
   non-space byte (a caller joining texts by a space sets `pending` before the next one), so the result is
   " ".join(text.split()) of the texts joined — on the encoded text: decoding it gives what collapsing the
   decoded text gives (the bytes between spaces are copied as they are, and a space keeps apart what it kept
   apart before).  Byte by byte, printable ASCII first: a page's words are short, so per-word calls cost more
   than the copy. */
int utf8_feed(lw_utf8 *t, const lw_char *data, size_t len) {
    if (utf8_reserve(t, len + 1) < 0) return -1;
    char *out = t->out;
    size_t o = t->len, i = 0;
    int pending = t->pending;
    while (i < len) {
        lw_char c = data[i];
        size_t space;
        if (c > ' ' && c < 0x80) {
            space = 0;
        } else if (c == ' ') {
            space = 1;
        } else {
            space = space_at(data + i, len - i);
        }
        if (space) {
            if (o > 0) pending = 1;
            i += space;
            continue;
        }
        if (pending) {
            out[o++] = ' ';
            pending = 0;
        }
        out[o++] = (char)c;
        i++;
    }
    t->len = o;
    t->pending = pending;
    return 0;
}

/* page_text(root_address, text_id, script_id, style_id) -> str: see linkwalk_native.page_text. */
PyObject *page_text(PyObject *module, PyObject *args) {
    unsigned long long addr, text_id, script_id, style_id;
    if (!PyArg_ParseTuple(args, "KKKK", &addr, &text_id, &script_id, &style_id)) return NULL;
    if (!lx.ready || !lx.layout_ok) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    void *root = (void *)(uintptr_t)addr;
    lw_utf8 t = {NULL, 0, 0, 0};
    PyObject *result = NULL;
    if (root != NULL) {
        void *cur = root;
        while (cur != NULL) {
            uintptr_t tag = node_tag_id(cur);
            int descend = 1;
            if (tag == text_id) {
                size_t len = 0;
                const lw_char *data = text_data(cur, &len);
                if (t.len > 0) t.pending = 1; /* text nodes are joined by a space */
                if (data != NULL && utf8_feed(&t, data, len) < 0) goto done;
            } else if ((tag == script_id || tag == style_id) && node_type(cur) == LW_ELEMENT && cur != root) {
                descend = 0; /* the element and everything in it are left out */
            }
            cur = next_in(cur, root, descend);
        }
    }
    result = PyUnicode_DecodeUTF8(t.out ? t.out : "", (Py_ssize_t)t.len, "replace");
done:
    PyMem_Free(t.out);
    return result;
}

/* head_parts(head_address, base_id, title_id, text_id) -> (href, title): in the head's subtree, the "href" of the
   first <base> element that has one (None: no such element) and the text of the first <title> element — its
   text nodes concatenated, white space collapsed (None: no title).  What parse-html's CSS queries
   "base[href]" and "title" on the head find. */
PyObject *head_parts(PyObject *module, PyObject *args) {
    unsigned long long addr, base_id, title_id, text_id;
    if (!PyArg_ParseTuple(args, "KKKK", &addr, &base_id, &title_id, &text_id)) return NULL;
    if (!lx.ready || !lx.layout_ok || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    void *head = (void *)(uintptr_t)addr;
    PyObject *href = NULL, *title = NULL;
    for (void *cur = next_in(head, head, 1); cur != NULL && (href == NULL || title == NULL); cur = next_in(cur, head, 1)) {
        if (node_type(cur) != LW_ELEMENT) continue;
        uintptr_t tag = node_tag_id(cur);
        if (tag == base_id && href == NULL) {
            void *attr = attr_by_local(cur, "href", 4);
            if (attr == NULL) continue;
            size_t len = 0;
            const lw_char *value = lx.attr_value(attr, &len);
            href = decode(value != NULL ? value : (const lw_char *)"", value != NULL ? len : 0);
            if (href == NULL) goto fail;
        } else if (tag == title_id && title == NULL) {
            lw_utf8 t = {NULL, 0, 0, 0};
            for (void *node = next_in(cur, cur, 1); node != NULL; node = next_in(node, cur, 1)) {
                if (node_tag_id(node) != text_id) continue;
                size_t len = 0;
                const lw_char *data = text_data(node, &len);
                if (data != NULL && utf8_feed(&t, data, len) < 0) { /* concatenated: no space between nodes */
                    PyMem_Free(t.out);
                    goto fail;
                }
            }
            title = PyUnicode_DecodeUTF8(t.out ? t.out : "", (Py_ssize_t)t.len, "replace");
            PyMem_Free(t.out);
            if (title == NULL) goto fail;
        }
    }
    return Py_BuildValue("(NN)", href != NULL ? href : Py_NewRef(Py_None), title != NULL ? title : Py_NewRef(Py_None));
fail:
    Py_XDECREF(href);
    Py_XDECREF(title);
    return NULL;
}
