/* minicdcl: a small CDCL SAT solver shipped as SATLUTION's example seed (used where kissat's source
 * cannot be fetched). Two watched literals, first-UIP learning, activity-based decisions with phase
 * saving, Luby restarts, and a DRAT proof of every learned clause. Sound, not fast.
 * Usage: minicdcl CNF [PROOF]   Output: SAT Competition format, exit 10 / 20. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

#define OPTION(N, V, L, H, D) static const long opt_##N = V;
OPTIONS
#undef OPTION

typedef struct { int *lits; int size; } Clause;
typedef struct { int *cls; int n, cap; } Watch;

static int nvars, nclauses_cap, nclauses;
static Clause *clauses;
static Watch *watches;      /* indexed by literal code: 2*v + (lit < 0) */
static signed char *value;  /* per variable: 0 unassigned, 1 true, -1 false */
static signed char *saved;
static int *level, *reason, *trail, *seen;
static int trail_n, qhead;
static double *activity, bump = 1.0;
static FILE *proof;

static int code(int lit) { return 2 * abs(lit) + (lit < 0); }
static int val(int lit) { int v = value[abs(lit)]; return lit > 0 ? v : -v; }

static void *xalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) { fprintf(stderr, "minicdcl: out of memory\n"); abort(); }
  return p;
}

static void watch(int lit, int c) {
  Watch *w = &watches[code(lit)];
  if (w->n == w->cap) { w->cap = w->cap ? 2 * w->cap : 4; w->cls = realloc(w->cls, sizeof(int) * w->cap); if (!w->cls) abort(); }
  w->cls[w->n++] = c;
}

static int add_clause(int *lits, int size) {
  if (nclauses == nclauses_cap) { nclauses_cap = nclauses_cap ? 2 * nclauses_cap : 64; clauses = realloc(clauses, sizeof(Clause) * nclauses_cap); if (!clauses) abort(); }
  Clause *c = &clauses[nclauses];
  c->lits = xalloc(sizeof(int) * size);
  memcpy(c->lits, lits, sizeof(int) * size);
  c->size = size;
  if (size >= 2) { watch(c->lits[0], nclauses); watch(c->lits[1], nclauses); }
  return nclauses++;
}

static void assign(int lit, int lvl, int why) {
  int v = abs(lit);
  value[v] = lit > 0 ? 1 : -1;
  level[v] = lvl;
  reason[v] = why;
  trail[trail_n++] = lit;
}

/* Returns the index of a conflicting clause, or -1. */
static int propagate(int lvl) {
  while (qhead < trail_n) {
    int falsified = -trail[qhead++];
    Watch *w = &watches[code(falsified)];
    int i = 0, j = 0;
    while (i < w->n) {
      int ci = w->cls[i++];
      Clause *c = &clauses[ci];
      if (c->lits[0] == falsified) { c->lits[0] = c->lits[1]; c->lits[1] = falsified; }
      if (val(c->lits[0]) > 0) { w->cls[j++] = ci; continue; }
      int k, moved = 0;
      for (k = 2; k < c->size; k++)
        if (val(c->lits[k]) >= 0) {
          c->lits[1] = c->lits[k]; c->lits[k] = falsified;
          watch(c->lits[1], ci);
          moved = 1;
          break;
        }
      if (moved) continue;
      w->cls[j++] = ci;
      if (val(c->lits[0]) < 0) { while (i < w->n) w->cls[j++] = w->cls[i++]; w->n = j; return ci; }
      assign(c->lits[0], lvl, ci);
    }
    w->n = j;
  }
  return -1;
}

static void bump_var(int v) {
  activity[v] += bump;
  if (activity[v] > 1e100) { for (int i = 1; i <= nvars; i++) activity[i] *= 1e-100; bump *= 1e-100; }
}

/* First-UIP analysis; writes the learned clause (asserting literal first) and returns the backjump level. */
static int analyze(int confl, int lvl, int *learned, int *size) {
  int n = 1, open = 0, lit = 0, idx = trail_n - 1;
  do {
    Clause *c = &clauses[confl];
    for (int k = 0; k < c->size; k++) {
      int q = c->lits[k], v = abs(q);
      if (q == lit || seen[v] || level[v] == 0) continue;
      seen[v] = 1;
      bump_var(v);
      if (level[v] == lvl) open++;
      else learned[n++] = q;
    }
    while (!seen[abs(trail[idx])]) idx--;
    lit = trail[idx--];
    confl = reason[abs(lit)];
    seen[abs(lit)] = 0;
  } while (--open > 0);
  learned[0] = -lit;
  int back = 0, where = 1;
  for (int k = 1; k < n; k++) { seen[abs(learned[k])] = 0; if (level[abs(learned[k])] > back) { back = level[abs(learned[k])]; where = k; } }
  if (n > 1) { int t = learned[1]; learned[1] = learned[where]; learned[where] = t; }
  bump *= 100.0 / opt_decay;
  *size = n;
  return back;
}

static void backtrack(int lvl) {
  while (trail_n > 0 && level[abs(trail[trail_n - 1])] > lvl) {
    int v = abs(trail[--trail_n]);
    saved[v] = value[v];
    value[v] = 0;
  }
  qhead = trail_n;
}

static int luby(int i) {
  int k = 1;
  while ((1 << k) - 1 < i) k++;
  while ((1 << k) - 1 != i) { i -= (1 << (k - 1)) - 1; k = 1; while ((1 << k) - 1 < i) k++; }
  return 1 << (k - 1);
}

static void emit(int *lits, int size) {
  if (!proof) return;
  for (int k = 0; k < size; k++) fprintf(proof, "%d ", lits[k]);
  fprintf(proof, "0\n");
}

static int solve(void) {
  int lvl = 0, conflicts = 0, restarts = 1, limit = opt_restartint * luby(1);
  int *learned = xalloc(sizeof(int) * (nvars + 1));
  if (propagate(0) >= 0) return 20;
  for (;;) {
    int confl = propagate(lvl);
    if (confl >= 0) {
      if (lvl == 0) { emit(NULL, 0); return 20; }
      int size, back = analyze(confl, lvl, learned, &size);
      emit(learned, size);
      backtrack(back);
      lvl = back;
      if (size == 1) assign(learned[0], 0, -1);
      else assign(learned[0], lvl, add_clause(learned, size));
      if (++conflicts >= limit) { backtrack(0); lvl = 0; conflicts = 0; limit = opt_restartint * luby(++restarts); }
      continue;
    }
    int best = 0;
    for (int v = 1; v <= nvars; v++) if (!value[v] && (!best || activity[v] > activity[best])) best = v;
    if (!best) return 10;
    lvl++;
    assign(saved[best] ? saved[best] * best : (opt_phase ? best : -best), lvl, -1);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: minicdcl CNF [PROOF]\n"); return 1; }
  FILE *f = fopen(argv[1], "r");
  if (!f) { fprintf(stderr, "minicdcl: cannot open %s\n", argv[1]); return 1; }
  if (argc > 2 && !(proof = fopen(argv[2], "w"))) { fprintf(stderr, "minicdcl: cannot write %s\n", argv[2]); return 1; }
  int ch, declared;
  while ((ch = getc(f)) == 'c') while ((ch = getc(f)) != '\n' && ch != EOF) {}
  ungetc(ch, f);
  if (fscanf(f, " p cnf %d %d", &nvars, &declared) != 2) { fprintf(stderr, "minicdcl: bad header\n"); return 1; }
  watches = xalloc(sizeof(Watch) * (2 * nvars + 2));
  value = xalloc(nvars + 1); saved = xalloc(nvars + 1);
  level = xalloc(sizeof(int) * (nvars + 1)); reason = xalloc(sizeof(int) * (nvars + 1));
  trail = xalloc(sizeof(int) * (nvars + 1)); seen = xalloc(sizeof(int) * (nvars + 1));
  activity = xalloc(sizeof(double) * (nvars + 1));
  int *buf = xalloc(sizeof(int) * (nvars + 1)), n = 0, lit, result = 0;
  while (fscanf(f, " %d", &lit) == 1) {
    if (lit) {
      int dup = 0;
      for (int k = 0; k < n; k++) if (buf[k] == lit) dup = 1;
      if (!dup) buf[n++] = lit;
      continue;
    }
    int taut = 0;
    for (int a = 0; a < n; a++) for (int b = a + 1; b < n; b++) if (buf[a] == -buf[b]) taut = 1;
    if (!taut) {
      if (n == 0) result = 20;
      else if (n == 1) { if (val(buf[0]) < 0) result = 20; else if (!val(buf[0])) assign(buf[0], 0, -1); }
      else add_clause(buf, n);
    }
    n = 0;
  }
  fclose(f);
  if (!result) result = solve();
  if (result == 20) {
    if (proof) emit(NULL, 0);
    printf("s UNSATISFIABLE\n");
  } else {
    printf("s SATISFIABLE\nv");
    for (int v = 1; v <= nvars; v++) printf(" %d", value[v] >= 0 ? v : -v);
    printf(" 0\n");
  }
  if (proof) fclose(proof);
  return result;
}
