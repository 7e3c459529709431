/* _linkwalk: parse-opening's prose walk in C — htmlfilter_opening._Collector.walk's rules (the Python
   reference: a test compares both on every corpus), over the tree in one pass.

   The region's children are read in document order: text nodes join the current run; an inline
   element joins it with all the text under it; a block element ends the run and, unless it is page
   furniture, its content is read the same way (its end ends the run too); a skipped element ends the run
   and is not read.  A run ends by keeping its words when they are prose (at least min_block words, as
   many of them starting with a letter).  The run is kept collapsed on its UTF-8 bytes (lw_utf8), so its
   words are the bytes between single spaces.  The walk stops once max_words words are kept, or at the
   max_nodes-th block element. */
#include "_linkwalk.h"

typedef struct {
    lw_utf8 run;   /* the current run, white space collapsed */
    lw_utf8 kept;  /* the kept words, single-spaced */
    long long count, max_words, min_block;
} lw_opening;

/* Whether the word at p begins with a letter: its first character (decoded as "replace" decoding does:
   an invalid sequence is U+FFFD, not a letter) is alphanumeric but neither decimal nor "_". */
static int starts_with_letter(const lw_char *p, size_t left) {
    lw_char c = p[0];
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    Py_UCS4 cp;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (left < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return Py_UNICODE_ISALNUM(cp) && !Py_UNICODE_ISDECIMAL(cp);
}

/* Ends the run: keeps its words (up to max_words in all) when it is prose. */
static int flush(lw_opening *o) {
    lw_utf8 *r = &o->run;
    r->pending = 0;
    if (r->len == 0) return 0;
    long long words = 0, letters = 0, room = o->max_words - o->count;
    size_t cut = 0; /* the end of the first `room` words */
    for (size_t i = 0; i < r->len;) {
        words++;
        if (letters < o->min_block && starts_with_letter((const lw_char *)r->out + i, r->len - i)) letters++;
        const char *space = memchr(r->out + i, ' ', r->len - i);
        size_t end = space != NULL ? (size_t)(space - r->out) : r->len;
        if (words <= room) cut = end;
        i = end + 1;
    }
    if (words >= o->min_block && letters >= o->min_block && room > 0 && cut > 0) {
        if (utf8_reserve(&o->kept, cut + 1) < 0) return -1;
        if (o->kept.len > 0) o->kept.out[o->kept.len++] = ' ';
        memcpy(o->kept.out + o->kept.len, r->out, cut);
        o->kept.len += cut;
        o->count += words < room ? words : room;
    }
    r->len = 0;
    return 0;
}

static int feed_node_text(lw_utf8 *t, void *node, uintptr_t text_id) {
    size_t len = 0;
    const lw_char *data = text_data(node, &len);
    if (data == NULL) data = (const lw_char *)"";
    if (t->len > 0) t->pending = 1;
    return utf8_feed(t, data, len);
}

/* An inline element: all the text under it joins the run, text node by text node. */
static int feed_subtree_text(lw_utf8 *t, void *node, uintptr_t text_id) {
    if (t->len > 0) t->pending = 1;
    for (void *cur = next_in(node, node, 1); cur != NULL; cur = next_in(cur, node, 1))
        if (node_tag_id(cur) == text_id && feed_node_text(t, cur, text_id) < 0) return -1;
    return 0;
}

static int in_list(const lw_char *v, size_t n, PyObject *list, int whole) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(list); i++) {
        PyObject *item = PyTuple_GET_ITEM(list, i);
        size_t m = (size_t)PyBytes_GET_SIZE(item);
        const lw_char *w = (const lw_char *)PyBytes_AS_STRING(item);
        if (whole ? (m == n && ascii_ieq(v, w, n)) : (m <= n && (ascii_ieq(v, w, m) || ascii_ieq(v + n - m, w, m))))
            return 1;
    }
    return 0;
}

static int ascii_text(const lw_char *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] >= 0x80) return 0;
    return 1;
}

static int name_space(lw_char c) {
    return c == ' ' || c == '_' || c == '-' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
}

typedef struct {
    PyObject *roles, *words, *parts, *fallback;
} lw_furniture;

/* Whether block element `node` is page furniture (htmlfilter_opening.furniture_values: role, class and id
   words; ASCII here, anything else through the Python function); -1 on error. */
static int is_furniture(void *node, const lw_furniture *f) {
    static const char *names[3] = {"role", "class", "id"};
    const lw_char *value[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    int ascii = 1;
    for (int k = 0; k < 3; k++) {
        void *attr = attr_by_qualified(node, names[k], strlen(names[k]));
        if (attr == NULL) continue;
        value[k] = lx.attr_value(attr, &len[k]);
        if (value[k] == NULL) value[k] = (const lw_char *)"";
        ascii = ascii && ascii_text(value[k], len[k]);
    }
    if (!ascii) {
        PyObject *args[3] = {NULL, NULL, NULL};
        int result = -1;
        for (int k = 0; k < 3; k++) {
            if (value[k] == NULL) {
                args[k] = Py_NewRef(Py_None);
            } else if ((args[k] = decode(value[k], len[k])) == NULL) {
                goto done;
            }
        }
        PyObject *answer = PyObject_CallFunctionObjArgs(f->fallback, args[0], args[1], args[2], NULL);
        if (answer != NULL) {
            result = PyObject_IsTrue(answer);
            Py_DECREF(answer);
        }
    done:
        for (int k = 0; k < 3; k++) Py_XDECREF(args[k]);
        return result;
    }
    if (len[0] > 0 && in_list(value[0], len[0], f->roles, 1)) return 1;
    for (int k = 1; k < 3; k++) {
        const lw_char *v = value[k];
        size_t n = len[k], i = 0;
        while (i < n) {
            while (i < n && name_space(v[i])) i++;
            size_t start = i;
            while (i < n && !name_space(v[i])) i++;
            if (i > start && (in_list(v + start, i - start, f->words, 1) || in_list(v + start, i - start, f->parts, 0)))
                return 1;
        }
    }
    return 0;
}

/* opening_words(region, text_id, block, skip, max_words, min_block, max_nodes, roles, words, parts, fallback)
   -> the kept words joined by single spaces (see linkwalk_native.opening_function). */
PyObject *opening_words(PyObject *module, PyObject *args) {
    unsigned long long addr, text_id;
    const char *block, *skip;
    Py_ssize_t block_len, skip_len;
    long long max_words, min_block, max_nodes;
    lw_furniture f;
    if (!PyArg_ParseTuple(args, "KKy#y#LLLO!O!O!O", &addr, &text_id, &block, &block_len, &skip, &skip_len, &max_words,
                          &min_block, &max_nodes, &PyTuple_Type, &f.roles, &PyTuple_Type, &f.words, &PyTuple_Type,
                          &f.parts, &f.fallback))
        return NULL;
    if (!lx.ready || !lx.layout_ok || block_len != LW_MAX_TAG || skip_len != LW_MAX_TAG || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    PyObject *lists[3] = {f.roles, f.words, f.parts};
    for (int k = 0; k < 3; k++)
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lists[k]); i++)
            if (!PyBytes_Check(PyTuple_GET_ITEM(lists[k], i))) {
                PyErr_SetString(PyExc_TypeError, "furniture names must be bytes");
                return NULL;
            }
    void *region = (void *)(uintptr_t)addr;
    lw_opening o = {{NULL, 0, 0, 0}, {NULL, 0, 0, 0}, 0, max_words, min_block};
    PyObject *result = NULL;
    long long budget = max_nodes;
    void *cur = node_first_child(region);
    while (cur != NULL && o.count < max_words) {
        uintptr_t tag = node_tag_id(cur);
        int descend = 0;
        if (tag == text_id) {
            if (feed_node_text(&o.run, cur, text_id) < 0) goto done;
        } else if (node_type(cur) == LW_ELEMENT) {
            int known = tag < LW_MAX_TAG;
            if (known && block[tag]) {
                if (flush(&o) < 0) goto done;
                if (o.count >= max_words || --budget <= 0) break;
                int furniture = is_furniture(cur, &f);
                if (furniture < 0) goto done;
                descend = !furniture;
            } else if (known && skip[tag]) {
                if (flush(&o) < 0) goto done;
            } else if (feed_subtree_text(&o.run, cur, text_id) < 0) {
                goto done;
            }
        }
        void *child = descend ? node_first_child(cur) : NULL;
        if (child != NULL) {
            cur = child;
            continue;
        }
        /* the next node, ending each block left on the way (and the region, at the end) */
        while (cur != region && node_next(cur) == NULL) {
            cur = node_parent(cur);
            if (cur == NULL || flush(&o) < 0) goto done_or_end;
            if (o.count >= max_words) break;
        }
        cur = (cur == region || o.count >= max_words) ? NULL : node_next(cur);
    }
    goto end;
done_or_end:
    if (PyErr_Occurred()) goto done;
end:
    result = PyUnicode_DecodeUTF8(o.kept.out ? o.kept.out : "", (Py_ssize_t)o.kept.len, "replace");
done:
    PyMem_Free(o.run.out);
    PyMem_Free(o.kept.out);
    return result;
}

/* ---------- the main region: htmlfilter_opening.main_region's CSS queries as one scan ---------- */

#define LW_REGION_UNSURE (-1) /* an id that matches only ASCII case-insensitively: CSS decides (quirks mode) */

/* 2: a main element (tag main, role="main", id content / main-content / main), 1: an <article> only, 0: neither,
   LW_REGION_UNSURE: an id that would match in a quirks-mode document only. */
static int region_kind(void *node, uintptr_t main_id, uintptr_t article_id) {
    uintptr_t tag = node_tag_id(node);
    if (tag == main_id) return 2;
    size_t n = 0;
    void *attr = attr_by_qualified(node, "role", 4);
    const lw_char *v = attr != NULL ? lx.attr_value(attr, &n) : NULL;
    if (v != NULL && n == 4 && memcmp(v, "main", 4) == 0) return 2;
    attr = attr_by_qualified(node, "id", 2);
    v = attr != NULL ? lx.attr_value(attr, &n) : NULL;
    if (v != NULL) {
        static const char *ids[3] = {"content", "main-content", "main"};
        for (int k = 0; k < 3; k++) {
            size_t m = strlen(ids[k]);
            if (n == m && memcmp(v, ids[k], m) == 0) return 2;
            if (n == m && ascii_ieq(v, (const lw_char *)ids[k], m)) return LW_REGION_UNSURE;
        }
    }
    return tag == article_id ? 1 : 0;
}

/* opening_region(root, main_id, article_id) -> the address of the region main_region picks among the elements
   (the body is the caller's: 0 means "the body"), or -1 when an id's case decides (the caller asks CSS). */
PyObject *opening_region(PyObject *module, PyObject *args) {
    unsigned long long addr, main_id, article_id;
    if (!PyArg_ParseTuple(args, "KKK", &addr, &main_id, &article_id)) return NULL;
    if (!lx.ready || !lx.layout_ok || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "not configured");
        return NULL;
    }
    void *root = (void *)(uintptr_t)addr;
    void *first_article = NULL;
    long articles = 0;
    for (void *cur = root; cur != NULL; cur = next_in(cur, root, 1)) {
        if (node_type(cur) != LW_ELEMENT) continue;
        int kind = region_kind(cur, (uintptr_t)main_id, (uintptr_t)article_id);
        if (kind == LW_REGION_UNSURE) return PyLong_FromLong(LW_REGION_UNSURE);
        if (kind == 2) return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)cur);
        if (kind == 1 && articles++ == 0) first_article = cur;
    }
    return PyLong_FromUnsignedLongLong(articles == 1 ? (unsigned long long)(uintptr_t)first_article : 0ULL);
}
