/* The double-dummy solver of solver.py (`PySolver`, the reference), compiled.
 *
 * The same search, step for step: MTD(f) null windows over alpha-beta, a transposition
 * table at trick boundaries keyed by the hands and the leader, the same move order and the
 * same equivalent-trump pruning, so values, node counts and clock readings match the Python
 * class exactly. The rule tables come from Python (`configure`, called by solver.py at
 * import): this file knows no rule of its own.
 *
 * Plain CPython C API, no dependency. Seats 3 or 4, tiles 0..27, hands as 28-bit masks.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define TILES 28
#define SUITS 8
#define TRUMPS 9
#define MAX_SEATS 4
#define FULL_HAND ((1u << TILES) - 1)
#define TT_FIRST_BITS 12
/* The table doubles up to this size, then is cleared when half full (bounded memory; at
 * most half full, linear probing stays short). */
#ifndef TT_MAX_BITS  /* a debug build may set it lower, to exercise the clearing */
#define TT_MAX_BITS 20
#endif

typedef struct {
    uint32_t follow[SUITS];            /* FOLLOW[trump][suit] */
    uint8_t lead_suit[TILES];          /* LEAD_SUIT[trump][tile] */
    int16_t win_rank[SUITS][TILES];    /* WIN_RANK[trump][suit led][tile] */
    uint32_t trump_mask;               /* IS_TRUMP[trump] */
    uint8_t trump_order[TILES];        /* the trumps, highest first */
    int trumps;
    uint8_t lead_order[TILES];         /* leads, strongest first */
    uint8_t cheap_order[TILES];        /* discards, cheapest first */
    uint8_t follow_order[SUITS][TILES];/* for each suit led, the lowest winner first */
    /* Each tile's place in those orders (the sort keys). */
    uint8_t lead_place[TILES], cheap_place[TILES], follow_place[SUITS][TILES];
} Tables;

static Tables tables[TRUMPS];
static int configured = 0;
static PyObject *search_timeout = NULL;
/* A search starts by clearing a table that holds more entries than this (`_TT_LIMIT`). */
static Py_ssize_t table_limit = 0;

typedef struct {
    uint32_t hands[MAX_SEATS];
    uint8_t leader;
    uint8_t used;
    int16_t lo, hi;
} Entry;

typedef struct {
    PyObject_HEAD
    const Tables *t;
    int trump;
    int n;
    int side[MAX_SEATS];
    PyObject *side_tuple;
    Entry *table;
    int table_bits;
    Py_ssize_t count;
    unsigned long long nodes;
    PyObject *clock;
    int has_deadline;
    double deadline;
    int failed;  /* a Python error is set: unwind */
} Solver;

/* Portable: without -mpopcnt, __builtin_popcount is a library call, slower than this. */
static inline int popcount(uint32_t x) {
    x = x - (x >> 1 & 0x55555555u);
    x = (x & 0x33333333u) + (x >> 2 & 0x33333333u);
    return (int)(((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u >> 24);
}

/* More than one tile in the mask. */
static inline int several(uint32_t x) {
    return (x & (x - 1)) != 0;
}

static inline int low_tile(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(x);
#else
    int i = 0;
    while (!(x >> i & 1)) i++;
    return i;
#endif
}

/* The highest tile of a mask; 27 for an empty one, as Python's `ranks[-1]` would read. */
static inline int top_tile(uint32_t x) {
    if (!x) return 27;
#if defined(__GNUC__) || defined(__clang__)
    return 31 - __builtin_clz(x);
#else
    int i = 27;
    while (!(x >> i & 1)) i--;
    return i;
#endif
}

/* -- transposition table ------------------------------------------------------------- */

static size_t slot_of(const uint32_t *hands, int leader, int bits) {
    uint64_t a = (uint64_t)hands[0] | (uint64_t)hands[1] << 32;
    uint64_t b = ((uint64_t)hands[2] | (uint64_t)hands[3] << 32) + (uint64_t)leader;
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ull;
    return (size_t)(x >> (64 - bits));
}

static Entry *find(Solver *s, const uint32_t *hands, int leader) {
    if (!s->table) return NULL;
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    size_t i = slot_of(hands, leader, s->table_bits);
    for (;; i = (i + 1) & mask) {
        Entry *e = &s->table[i];
        if (!e->used) return NULL;
        if (e->leader == leader && memcmp(e->hands, hands, sizeof e->hands) == 0) return e;
    }
}

static void clear_table(Solver *s) {
    if (s->table) memset(s->table, 0, sizeof(Entry) << s->table_bits);
    s->count = 0;
}

static int grow(Solver *s) {
    int bits = s->table ? s->table_bits + 1 : TT_FIRST_BITS;
    Entry *fresh = PyMem_Calloc((size_t)1 << bits, sizeof(Entry));
    if (!fresh) { PyErr_NoMemory(); return -1; }
    if (s->table) {
        size_t mask = ((size_t)1 << bits) - 1;
        for (size_t j = 0; j < (size_t)1 << s->table_bits; j++) {
            Entry *e = &s->table[j];
            if (!e->used) continue;
            size_t i = slot_of(e->hands, e->leader, bits);
            while (fresh[i].used) i = (i + 1) & mask;
            fresh[i] = *e;
        }
        PyMem_Free(s->table);
    }
    s->table = fresh;
    s->table_bits = bits;
    return 0;
}

/* Store bounds; on running out of memory the entry is simply not kept. */
static void store(Solver *s, const uint32_t *hands, int leader, int lo, int hi) {
    Entry *e = find(s, hands, leader);
    if (!e) {
        if (!s->table || (s->count + 1) * 2 > (Py_ssize_t)1 << s->table_bits) {
            if (s->table && s->table_bits >= TT_MAX_BITS) clear_table(s);
            else if (grow(s) < 0) { PyErr_Clear(); return; }
        }
        size_t mask = ((size_t)1 << s->table_bits) - 1;
        size_t i = slot_of(hands, leader, s->table_bits);
        while (s->table[i].used) i = (i + 1) & mask;
        e = &s->table[i];
        memcpy(e->hands, hands, sizeof e->hands);
        e->leader = (uint8_t)leader;
        e->used = 1;
        s->count++;
    }
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
}

/* -- search -------------------------------------------------------------------------- */

static int within(Solver *s, uint32_t *hands, int leader, int *trick, int k,
                  int alpha, int beta);

static int last_trick(Solver *s, const uint32_t *hands, int leader) {
    const Tables *t = s->t;
    int first = top_tile(hands[leader]);
    const int16_t *ranks = t->win_rank[t->lead_suit[first]];
    int best_seat = leader, best_rank = ranks[first];
    for (int i = 1; i < s->n; i++) {
        int seat = (leader + i) % s->n;
        int r = ranks[top_tile(hands[seat])];
        if (r > best_rank) { best_seat = seat; best_rank = r; }
    }
    return s->side[best_seat];
}

/* A trick boundary: look the position up, search it, store the bounds. */
static int start(Solver *s, uint32_t *hands, int leader, int alpha, int beta) {
    int remaining = popcount(hands[leader]);
    if (remaining == 0) return 0;
    if (remaining == 1) return last_trick(s, hands, leader);
    int lo = 0, hi = remaining;
    Entry *e = find(s, hands, leader);
    if (e) {
        lo = e->lo;
        hi = e->hi;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int a0 = alpha, b0 = beta;
    int trick[MAX_SEATS + 1];
    int value = within(s, hands, leader, trick, 0, alpha, beta);
    if (s->failed) return 0;
    if (value <= a0) { if (value < hi) hi = value; }
    else if (value >= b0) { if (value > lo) lo = value; }
    else lo = hi = value;
    store(s, hands, leader, lo, hi);
    return value;
}

/* Keep one trump of each run of the mover's trumps with no live trump between. */
static uint32_t prune_trumps(const Solver *s, uint32_t cands, const uint32_t *hands,
                             const int *trick, int k) {
    const Tables *t = s->t;
    if (!several(cands & t->trump_mask)) return cands;
    uint32_t live = 0;
    for (int i = 0; i < s->n; i++) live |= hands[i];
    for (int i = 0; i < k; i++) live |= 1u << trick[i];
    int prev_mine = 0;
    for (int i = 0; i < t->trumps; i++) {
        int tile = t->trump_order[i];
        if (live >> tile & 1) {
            if (cands >> tile & 1) {
                if (prev_mine) cands ^= 1u << tile;
                prev_mine = 1;
            } else {
                prev_mine = 0;
            }
        }
    }
    return cands;
}

static int out_of_time(Solver *s) {
    PyObject *now = PyObject_CallNoArgs(s->clock);
    if (!now) return 1;
    double value = PyFloat_AsDouble(now);
    Py_DECREF(now);
    if (value == -1.0 && PyErr_Occurred()) return 1;
    if (value > s->deadline) {
        PyErr_SetNone(search_timeout);
        return 1;
    }
    return 0;
}

/* Append the tiles of `cands` to `moves` in the order given by `place`; the new count. */
static inline int add_ordered(uint32_t cands, const uint8_t *place, uint8_t *moves,
                              int count) {
    int first = count;
    while (cands) {
        int tile = low_tile(cands);
        cands &= cands - 1;
        int j = count++;
        while (j > first && place[moves[j - 1]] > place[tile]) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = (uint8_t)tile;
    }
    return count;
}

/* Inside a trick: the seat to move tries its ordered, pruned candidates. */
static int within(Solver *s, uint32_t *hands, int leader, int *trick, int k,
                  int alpha, int beta) {
    const Tables *t = s->t;
    const int n = s->n;
#if defined(__GNUC__) || defined(__clang__)
    /* Known by construction; told to the compiler, which inlines this recursion. */
    if (n > MAX_SEATS || k > n) __builtin_unreachable();
#endif
    s->nodes++;
    if (!(s->nodes & 1023) && s->has_deadline && out_of_time(s)) {
        s->failed = 1;
        return 0;
    }
    if (k == n) {  /* only from move_values, when its move ends the trick */
        const int16_t *ranks = t->win_rank[t->lead_suit[trick[0]]];
        int best_i = 0, best_rank = ranks[trick[0]];
        for (int i = 1; i < n; i++)
            if (ranks[trick[i]] > best_rank) { best_i = i; best_rank = ranks[trick[i]]; }
        int winner = (leader + best_i) % n;
        int won = s->side[winner];
        int value = start(s, hands, winner, alpha - won, beta - won);
        return s->failed ? 0 : won + value;
    }
    int mover = (leader + k) % n;
    int maximise = s->side[mover];
    uint32_t hand = hands[mover];
    uint8_t moves[TILES];
    int count = 0;
    const int16_t *ranks;
    int best_rank, holder;
    if (k == 0) {
        uint32_t cands = hand;
        if (several(cands & t->trump_mask)) cands = prune_trumps(s, cands, hands, trick, k);
        count = add_ordered(cands, t->lead_place, moves, 0);
        best_rank = -1;
        holder = -1;
        ranks = t->win_rank[0];
    } else {
        int led = t->lead_suit[trick[0]];
        uint32_t f = hand & t->follow[led];
        uint32_t cands = f ? f : hand;
        if (several(cands & t->trump_mask)) cands = prune_trumps(s, cands, hands, trick, k);
        ranks = t->win_rank[led];
        int best_i = 0;
        best_rank = ranks[trick[0]];
        for (int i = 1; i < k; i++)
            if (ranks[trick[i]] > best_rank) { best_i = i; best_rank = ranks[trick[i]]; }
        holder = (leader + best_i) % n;
        if (s->side[holder] == maximise) {
            /* The trick is already ours: cheapest tiles first. */
            count = add_ordered(cands, t->cheap_place, moves, 0);
        } else {
            /* The lowest winner first, then the cheapest losers. */
            uint32_t winners = 0;
            for (uint32_t rest = cands; rest; rest &= rest - 1) {
                int tile = low_tile(rest);
                if (ranks[tile] > best_rank) winners |= 1u << tile;
            }
            count = add_ordered(winners, t->follow_place[led], moves, 0);
            count = add_ordered(cands & ~winners, t->cheap_place, moves, count);
        }
    }
    int best = maximise ? -1 : 99;
    int last = k == n - 1;
    for (int i = 0; i < count; i++) {
        int tile = moves[i];
        int value;
        hands[mover] = hand ^ (1u << tile);
        if (last) {
            int winner = ranks[tile] > best_rank ? mover : holder;
            int won = s->side[winner];
            value = won + start(s, hands, winner, alpha - won, beta - won);
        } else {
            trick[k] = tile;
            value = within(s, hands, leader, trick, k + 1, alpha, beta);
        }
        if (s->failed) break;
        if (maximise) {
            if (value > best) {
                best = value;
                if (value > alpha) {
                    alpha = value;
                    if (alpha >= beta) break;
                }
            }
        } else if (value < best) {
            best = value;
            if (value < beta) {
                beta = value;
                if (alpha >= beta) break;
            }
        }
    }
    hands[mover] = hand;
    return s->failed ? 0 : best;
}

/* The exact value by a series of null-window searches (MTD(f)). */
static int mtdf(Solver *s, uint32_t *hands, int leader, int *trick, int k, int top,
                int guess) {
    int lo = 0, hi = top;
    int g = guess < lo ? lo : guess > hi ? hi : guess;
    while (lo < hi) {
        int beta = g == lo ? g + 1 : g;
        g = within(s, hands, leader, trick, k, beta - 1, beta);
        if (s->failed) return -1;
        if (g < beta) hi = g;
        else lo = g;
    }
    return lo;
}

/* -- the Python face ----------------------------------------------------------------- */

/* A Python int into [lo, hi], or -1 with ValueError naming `what`. */
static long int_in(PyObject *obj, long lo, long hi, const char *what) {
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s out of range: %ld", what, v);
        return -1;
    }
    return v;
}

/* Read the arguments of a search: -1 with an exception set when they do not fit. */
static int read_position(Solver *s, PyObject *hands_obj, PyObject *leader_obj,
                         PyObject *trick_obj, int max_trick, uint32_t *hands, int *leader,
                         int *trick, int *k) {
    if (!s->t) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ was not called");
        return -1;
    }
    PyObject *seq = PySequence_Fast(hands_obj, "hands must be a sequence of masks");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != s->n) {
        PyErr_Format(PyExc_ValueError, "expected %d hands", s->n);
        Py_DECREF(seq);
        return -1;
    }
    memset(hands, 0, sizeof(uint32_t) * MAX_SEATS);
    for (int i = 0; i < s->n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        unsigned long long v = PyLong_AsUnsignedLongLong(item);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        if (v > FULL_HAND) {
            PyErr_SetString(PyExc_ValueError, "a hand mask holds tiles beyond 27");
            Py_DECREF(seq);
            return -1;
        }
        hands[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    long l = int_in(leader_obj, 0, s->n - 1, "leader");
    if (l < 0) return -1;
    *leader = (int)l;
    *k = 0;
    if (trick_obj) {
        seq = PySequence_Fast(trick_obj, "trick must be a sequence of tiles");
        if (!seq) return -1;
        Py_ssize_t size = PySequence_Fast_GET_SIZE(seq);
        if (size > max_trick) {
            PyErr_SetString(PyExc_ValueError, "too many tiles in the trick");
            Py_DECREF(seq);
            return -1;
        }
        for (Py_ssize_t i = 0; i < size; i++) {
            long tile = int_in(PySequence_Fast_GET_ITEM(seq, i), 0, TILES - 1, "tile");
            if (tile < 0) { Py_DECREF(seq); return -1; }
            trick[i] = (int)tile;
        }
        *k = (int)size;
        Py_DECREF(seq);
    }
    return 0;
}

static int remaining_tricks(const Solver *s, const uint32_t *hands, int k) {
    int most = 0;
    for (int i = 0; i < s->n; i++)
        if (popcount(hands[i]) > most) most = popcount(hands[i]);
    return most + (k ? 1 : 0);
}

static void begin_search(Solver *s) {
    if (s->count > table_limit) clear_table(s);
    s->failed = 0;
}

static PyObject *Solver_solve(Solver *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hands", "leader", "trick", "guess", NULL};
    PyObject *hands_obj, *leader_obj, *trick_obj = NULL, *guess_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OO:solve", kwlist, &hands_obj,
                                     &leader_obj, &trick_obj, &guess_obj))
        return NULL;
    uint32_t hands[MAX_SEATS];
    int trick[MAX_SEATS + 1];
    int leader, k;
    if (read_position(s, hands_obj, leader_obj, trick_obj, s->n, hands, &leader, trick, &k) < 0)
        return NULL;
    int top = remaining_tricks(s, hands, k);
    int guess = top / 2;
    if (guess_obj != Py_None) {
        int overflow;
        long long g = PyLong_AsLongLongAndOverflow(guess_obj, &overflow);
        if (g == -1 && PyErr_Occurred()) return NULL;
        guess = overflow > 0 || g > top ? top : overflow < 0 || g < 0 ? 0 : (int)g;
    }
    begin_search(s);
    int value = mtdf(s, hands, leader, trick, k, top, guess);
    if (s->failed) return NULL;
    return PyLong_FromLong(value);
}

static PyObject *Solver_move_values(Solver *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hands", "leader", "trick", NULL};
    PyObject *hands_obj, *leader_obj, *trick_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:move_values", kwlist, &hands_obj,
                                     &leader_obj, &trick_obj))
        return NULL;
    uint32_t hands[MAX_SEATS];
    int trick[MAX_SEATS + 1];
    int leader, k;
    if (read_position(s, hands_obj, leader_obj, trick_obj, s->n - 1, hands, &leader, trick,
                      &k) < 0)
        return NULL;
    begin_search(s);
    const Tables *t = s->t;
    int mover = (leader + k) % s->n;
    uint32_t hand = hands[mover];
    if (k) {
        uint32_t f = hand & t->follow[t->lead_suit[trick[0]]];
        if (f) hand = f;
    }
    int top = remaining_tricks(s, hands, k);
    int guess = top / 2;
    uint32_t kept = prune_trumps(s, hand, hands, trick, k);
    int values[TILES];
    PyObject *out = PyDict_New();
    if (!out) return NULL;
    for (int tile = 0; tile < TILES; tile++) {
        values[tile] = -2;
        if (!(kept >> tile & 1)) continue;
        hands[mover] ^= 1u << tile;
        trick[k] = tile;
        guess = mtdf(s, hands, leader, trick, k + 1, top, guess);
        hands[mover] ^= 1u << tile;
        if (s->failed) { Py_DECREF(out); return NULL; }
        values[tile] = guess;
    }
    /* A trump dropped as equivalent is worth what the trump just above it is. */
    int value = -1;
    for (int i = 0; i < TILES; i++) {
        int tile = i < t->trumps ? t->trump_order[i] : -1;
        if (tile < 0) break;
        if (values[tile] != -2) value = values[tile];
        else if (hand >> tile & 1) values[tile] = value;
    }
    /* Insertion order as in `PySolver`: kept tiles lowest first, then dropped trumps. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < (pass ? t->trumps : TILES); i++) {
            int tile = pass ? t->trump_order[i] : i;
            if (values[tile] == -2 || (pass == 0) != (int)(kept >> tile & 1)) continue;
            PyObject *key = PyLong_FromLong(tile), *v = PyLong_FromLong(values[tile]);
            int bad = !key || !v || PyDict_SetItem(out, key, v) < 0;
            Py_XDECREF(key);
            Py_XDECREF(v);
            if (bad) { Py_DECREF(out); return NULL; }
        }
    }
    return out;
}

static int Solver_init(Solver *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"trump", "players", "side", NULL};
    int trump, players;
    PyObject *side;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiO:Solver", kwlist, &trump, &players,
                                     &side))
        return -1;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_dds.configure() was not called");
        return -1;
    }
    if (trump < 0 || trump >= TRUMPS || players < 3 || players > MAX_SEATS) {
        PyErr_SetString(PyExc_ValueError, "trump 0..8 and 3 or 4 players");
        return -1;
    }
    PyObject *seq = PySequence_Fast(side, "side must be a sequence of bools");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != players) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "side needs one entry a seat");
        return -1;
    }
    PyObject *flags = PyTuple_New(players);
    if (!flags) { Py_DECREF(seq); return -1; }
    for (int i = 0; i < players; i++) {
        int truth = PyObject_IsTrue(PySequence_Fast_GET_ITEM(seq, i));
        if (truth < 0) { Py_DECREF(seq); Py_DECREF(flags); return -1; }
        s->side[i] = truth;
        PyTuple_SET_ITEM(flags, i, PyBool_FromLong(truth));
    }
    Py_DECREF(seq);
    Py_XSETREF(s->side_tuple, flags);
    s->t = &tables[trump];
    s->trump = trump;
    s->n = players;
    clear_table(s);
    s->nodes = 0;
    s->has_deadline = 0;
    PyObject *clock = PyImport_ImportModule("time");
    if (!clock) return -1;
    Py_SETREF(clock, PyObject_GetAttrString(clock, "perf_counter"));
    if (!clock) return -1;
    Py_XSETREF(s->clock, clock);
    return 0;
}

static int Solver_traverse(Solver *s, visitproc visit, void *arg) {
    Py_VISIT(s->clock);
    Py_VISIT(s->side_tuple);
    return 0;
}

static int Solver_clear(Solver *s) {
    Py_CLEAR(s->clock);
    Py_CLEAR(s->side_tuple);
    return 0;
}

static void Solver_dealloc(Solver *s) {
    PyObject_GC_UnTrack(s);
    Solver_clear(s);
    PyMem_Free(s->table);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *get_nodes(Solver *s, void *closure) {
    return PyLong_FromUnsignedLongLong(s->nodes);
}

static int set_nodes(Solver *s, PyObject *value, void *closure) {
    if (!value) { PyErr_SetString(PyExc_TypeError, "nodes cannot be deleted"); return -1; }
    unsigned long long v = PyLong_AsUnsignedLongLong(value);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    s->nodes = v;
    return 0;
}

static PyObject *get_deadline(Solver *s, void *closure) {
    if (!s->has_deadline) Py_RETURN_NONE;
    return PyFloat_FromDouble(s->deadline);
}

static int set_deadline(Solver *s, PyObject *value, void *closure) {
    if (!value || value == Py_None) { s->has_deadline = 0; return 0; }
    double v = PyFloat_AsDouble(value);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    s->deadline = v;
    s->has_deadline = 1;
    return 0;
}

static PyObject *get_clock(Solver *s, void *closure) {
    if (!s->clock) Py_RETURN_NONE;
    return Py_NewRef(s->clock);
}

static int set_clock(Solver *s, PyObject *value, void *closure) {
    if (!value || !PyCallable_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "clock must be a callable");
        return -1;
    }
    Py_XSETREF(s->clock, Py_NewRef(value));
    return 0;
}

static PyObject *get_side(Solver *s, void *closure) {
    if (!s->side_tuple) Py_RETURN_NONE;
    return Py_NewRef(s->side_tuple);
}

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)get_nodes, (setter)set_nodes, "positions searched", NULL},
    {"deadline", (getter)get_deadline, (setter)set_deadline,
     "`clock()` value after which a search raises SearchTimeout (None: no limit)", NULL},
    {"clock", (getter)get_clock, (setter)set_clock, "what the deadline is read on", NULL},
    {"side", (getter)get_side, NULL, "for each seat, true on the declarer's side", NULL},
    {NULL},
};

static PyMemberDef Solver_members[] = {
    {"trump", T_INT, offsetof(Solver, trump), READONLY, "the trump (0..8)"},
    {"n", T_INT, offsetof(Solver, n), READONLY, "the number of seats"},
    {NULL},
};

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Solver_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(hands, leader, trick=(), guess=None) -> tricks of the declarer's side"},
    {"move_values", (PyCFunction)(void (*)(void))Solver_move_values,
     METH_VARARGS | METH_KEYWORDS,
     "move_values(hands, leader, trick=()) -> {tile: tricks} for each legal tile"},
    {NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "moon_tui.bots._dds.Solver",
    .tp_doc = "Double-dummy solver for one trump and one declaring side (see PySolver).",
    .tp_basicsize = sizeof(Solver),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_traverse = (traverseproc)Solver_traverse,
    .tp_clear = (inquiry)Solver_clear,
    .tp_methods = Solver_methods,
    .tp_members = Solver_members,
    .tp_getset = Solver_getset,
};

/* -- configure: the rule tables from Python ------------------------------------------ */

/* Read `size` ints of `obj` (a sequence) within [lo, hi] into `out` via `put`. */
static int read_ints(PyObject *obj, Py_ssize_t size, long lo, long hi, long *out,
                     const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    if (size >= 0 && PySequence_Fast_GET_SIZE(seq) != size) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items", what, size);
        Py_DECREF(seq);
        return -1;
    }
    Py_ssize_t got = PySequence_Fast_GET_SIZE(seq);
    if (got > TILES) {
        PyErr_Format(PyExc_ValueError, "%s: too many items", what);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < got; i++) {
        long v = int_in(PySequence_Fast_GET_ITEM(seq, i), lo, hi, what);
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        out[i] = v;
    }
    Py_DECREF(seq);
    return (int)got;
}

/* Read `rows` rows of `size` ints each. */
static int read_rows(PyObject *obj, int rows, Py_ssize_t size, long lo, long hi,
                     long out[][TILES], const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != rows) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d rows", what, rows);
        Py_DECREF(seq);
        return -1;
    }
    for (int r = 0; r < rows; r++) {
        if (read_ints(PySequence_Fast_GET_ITEM(seq, r), size, lo, hi, out[r], what) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static int read_tables(PyObject *row, Tables *t) {
    PyObject *follow, *lead_suit, *win_rank, *trump_mask, *trump_order, *lead_order,
        *cheap_order, *follow_order;
    if (!PyArg_ParseTuple(row, "OOOOOOOO;a table row has 8 items", &follow, &lead_suit,
                          &win_rank, &trump_mask, &trump_order, &lead_order, &cheap_order,
                          &follow_order))
        return -1;
    long buf[SUITS][TILES], one[TILES];
    if (read_ints(follow, SUITS, 0, FULL_HAND, one, "follow") < 0) return -1;
    for (int i = 0; i < SUITS; i++) t->follow[i] = (uint32_t)one[i];
    if (read_ints(lead_suit, TILES, 0, SUITS - 1, one, "lead_suit") < 0) return -1;
    for (int i = 0; i < TILES; i++) t->lead_suit[i] = (uint8_t)one[i];
    if (read_rows(win_rank, SUITS, TILES, 0, 30000, buf, "win_rank") < 0) return -1;
    for (int r = 0; r < SUITS; r++)
        for (int i = 0; i < TILES; i++) t->win_rank[r][i] = (int16_t)buf[r][i];
    long mask = int_in(trump_mask, 0, FULL_HAND, "trump_mask");
    if (mask < 0) return -1;
    t->trump_mask = (uint32_t)mask;
    int trumps = read_ints(trump_order, -1, 0, TILES - 1, one, "trump_order");
    if (trumps < 0) return -1;
    t->trumps = trumps;
    for (int i = 0; i < trumps; i++) t->trump_order[i] = (uint8_t)one[i];
    if (read_ints(lead_order, TILES, 0, TILES - 1, one, "lead_order") < 0) return -1;
    for (int i = 0; i < TILES; i++) t->lead_order[i] = (uint8_t)one[i];
    if (read_ints(cheap_order, TILES, 0, TILES - 1, one, "cheap_order") < 0) return -1;
    for (int i = 0; i < TILES; i++) t->cheap_order[i] = (uint8_t)one[i];
    if (read_rows(follow_order, SUITS, TILES, 0, TILES - 1, buf, "follow_order") < 0) return -1;
    for (int r = 0; r < SUITS; r++)
        for (int i = 0; i < TILES; i++) t->follow_order[r][i] = (uint8_t)buf[r][i];
    /* The orders must each hold every tile once for their places to be right. */
    memset(t->lead_place, 0xFF, sizeof t->lead_place);
    memset(t->cheap_place, 0xFF, sizeof t->cheap_place);
    memset(t->follow_place, 0xFF, sizeof t->follow_place);
    for (int i = 0; i < TILES; i++) {
        t->lead_place[t->lead_order[i]] = (uint8_t)i;
        t->cheap_place[t->cheap_order[i]] = (uint8_t)i;
        for (int r = 0; r < SUITS; r++) t->follow_place[r][t->follow_order[r][i]] = (uint8_t)i;
    }
    for (int i = 0; i < TILES; i++) {
        int missing = t->lead_place[i] == 0xFF || t->cheap_place[i] == 0xFF;
        for (int r = 0; r < SUITS; r++) missing |= t->follow_place[r][i] == 0xFF;
        if (missing) {
            PyErr_SetString(PyExc_ValueError, "a move order misses a tile");
            return -1;
        }
    }
    return 0;
}

static PyObject *dds_configure(PyObject *module, PyObject *args) {
    PyObject *rows, *timeout;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOn:configure", &rows, &timeout, &limit)) return NULL;
    if (!PyExceptionClass_Check(timeout)) {
        PyErr_SetString(PyExc_TypeError, "configure: the timeout must be an exception class");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(rows, "configure: tables must be a sequence");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != TRUMPS) {
        PyErr_SetString(PyExc_ValueError, "configure: one table row a trump (9)");
        Py_DECREF(seq);
        return NULL;
    }
    static Tables fresh[TRUMPS];
    for (int i = 0; i < TRUMPS; i++) {
        if (read_tables(PySequence_Fast_GET_ITEM(seq, i), &fresh[i]) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    memcpy(tables, fresh, sizeof tables);
    Py_XSETREF(search_timeout, Py_NewRef(timeout));
    table_limit = limit;
    configured = 1;
    Py_RETURN_NONE;
}

static PyMethodDef dds_methods[] = {
    {"configure", dds_configure, METH_VARARGS,
     "configure(tables, timeout, table_limit): the rule tables for each trump, the "
     "exception a search raises when its deadline passes, and the table size that a new "
     "search starts by clearing"},
    {NULL},
};

static struct PyModuleDef dds_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "moon_tui.bots._dds",
    .m_doc = "The double-dummy solver of solver.py, compiled (optional: see PySolver).",
    .m_size = -1,
    .m_methods = dds_methods,
};

PyMODINIT_FUNC PyInit__dds(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&dds_module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
