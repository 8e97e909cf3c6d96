// SPDX-License-Identifier: GPL-2.0-only
/// Use pr_cont() for KERN_CONT, and build continuation lines in a seq_buf
///
/// Continuation pieces printed from different CPUs or contexts can
/// interleave, and whoever prints next ends a line left open. Building
/// the line in an on-stack struct seq_buf and printing it with a single
/// seq_buf_do_printk() call keeps it whole.
///
/// Rule 1 turns printk(KERN_CONT "..." ...) into pr_cont("..." ...), which
/// expands to the same call; literals split over lines are put on one.
/// printk(KERN_CONT) without a string literal is left alone.
///
/// Rule 2 converts a line that one function builds: an opening
/// pr_emerg() .. pr_info() or printk(KERN_<LEVEL> ...) without '\n',
/// pieces without '\n' (pr_cont() or printk(KERN_CONT ...), also in loops
/// and conditionals) and one closing piece whose format ends in its only
/// '\n'. Formats must be string literals. Every path from the opener,
/// including return, goto and break, must reach the closer; no path from
/// the function entry or back from the closer may reach it without the
/// opener; opener and closer must belong to no other line. In between
/// there may be no other print and no call used as a statement (such as a
/// helper continuing the line); calls whose value is used are kept unless
/// their name looks like printing. pr_debug() and pr_devel(), which may
/// compile to nothing, are not openers. The function gets the locals
/// line_buf and line at its start, so functions already using these names
/// or starting with #ifdef'd code are skipped, and the file gets #include
/// <linux/seq_buf.h>, so files where it has no unconditional include to
/// follow are skipped.
///
/// The line is buffered in line_buf_size (default 256) bytes: a longer
/// line is cut, so check loops and %s arguments, and pass
/// -D line_buf_size=N (with coccicheck: SPFLAGS=...) for long lines. The
/// converted formats leave the printk index (CONFIG_PRINTK_INDEX), and
/// calls in arguments now run before the line is printed rather than
/// between its pieces.
//
// Confidence: Moderate
// Copyright: (C) 2026 printk maintainer tree contributors
// Comments: seq_buf_do_printk() printks each '\n'-terminated line of the
//  buffer with the given level, so a buffer holding one line ending in
//  '\n' prints as the opener and pr_cont() calls did. pr_fmt() stays
//  explicit since seq_buf_do_printk() does not apply it. In patch mode,
//  give spatch one file at a time or --dir, as coccicheck does.
//  Report lines are "file:line: message".
// Options: --no-includes --include-headers
// Keywords: pr_cont, KERN_CONT

virtual patch
virtual report

@initialize:python@
@@
import re
import sys

_tok = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(\w+))')
_esc = re.compile(r'\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)')
_simple = {'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b',
           'f': '\f', 'v': '\v'}

def _unescape(m):
    e = m.group(1)
    if e[0] == 'x':
        return chr(int(e[1:], 16) & 0xff)
    if e[0] in '01234567':
        return chr(int(e, 8) & 0xff)
    return _simple.get(e, e)

def split_fmt(fmt):
    """('MACRO', 'ab') for 'MACRO "a" "b"', with escapes decoded.

    The macro is optional, the text is None if there is no literal, and
    anything else makes the format unknown (None)."""
    pos, macro, parts = 0, None, []
    fmt = fmt.strip()
    while pos < len(fmt):
        m = _tok.match(fmt, pos)
        if not m:
            return None
        if m.group(2) is not None:
            if parts or macro:
                return None
            macro = m.group(2)
        else:
            parts.append(_esc.sub(_unescape, m.group(1)))
        pos = m.end()
    if macro is None and not parts:
        return None
    return macro, ''.join(parts) if parts else None

PR_LEVEL = {'pr_emerg': 'KERN_EMERG', 'pr_alert': 'KERN_ALERT',
            'pr_crit': 'KERN_CRIT', 'pr_err': 'KERN_ERR',
            'pr_warn': 'KERN_WARNING', 'pr_notice': 'KERN_NOTICE',
            'pr_info': 'KERN_INFO'}
KERN_LEVEL = set(PR_LEVEL.values()) | {'KERN_DEBUG', 'KERN_DEFAULT'}

# Metavariable values can come with leading whitespace.
def is_opener(op):
    return op.strip() == 'printk' or op.strip() in PR_LEVEL

def opener_fmt(fmt):
    """pr_*("text") or printk(KERN_<LEVEL> ["text"]), text without '\n'."""
    s = split_fmt(fmt)
    if s is None or s[0] not in KERN_LEVEL | {None}:
        return False
    return s[1] is None or '\n' not in s[1]

def opener_level(op, fmt):
    """KERN_<LEVEL> of an opener, None if function and format disagree."""
    op, s = op.strip(), split_fmt(fmt)
    if op == 'printk':
        return s[0]
    return PR_LEVEL[op] if s[0] is None else None

def bare_level(fmt):
    s = split_fmt(fmt)
    return s is not None and s[1] is None

def _text(fmt, macro):
    s = split_fmt(fmt)
    return s[1] if s is not None and s[0] == macro else None

def _piece(t):
    return t is not None and '\n' not in t

def _closer(t):
    return t is not None and t.endswith('\n') and t.count('\n') == 1

def piece_pr(fmt):
    return _piece(_text(fmt, None))

def piece_k(fmt):
    return _piece(_text(fmt, 'KERN_CONT'))

def closer_pr(fmt):
    return _closer(_text(fmt, None))

def closer_k(fmt):
    return _closer(_text(fmt, 'KERN_CONT'))

def kern_cont_text(fmt):
    if _text(fmt, 'KERN_CONT') is None:
        return None
    return fmt.strip()[len('KERN_CONT'):].strip()

_printer = re.compile(r'(^|_)v?printk|(^|_)print(_|$)|^(pr|dev|netdev|netif)_'
                      r'|^(dump|show)_|^(WARN|BUG|panic)')

def printer(name):
    return (name not in ('pr_cont', 'printk') and
            _printer.search(name) is not None)

def other_callee(e):
    return e.strip() not in ('pr_cont', 'printk')

def fn_of(p):
    return p[0].current_element

def key(p):
    return (p[0].file, p[0].line, p[0].column)

def print_candidate(p, msg):
    print('%s:%s: %s' % (p[0].file, p[0].line, msg))

buf_size = '256'

# State of a file group, cleared by the first rule. Opener key -> closer
# keys and back, to reject lines sharing an end; openers whose every path
# reaches the closer cleanly, openers failing another check; names of
# functions with candidates; (file, function) using the names of the
# added locals, able to take the added declarations; functions
# converted, given the declarations (by name only: once a function is
# converted its positions can be in a temporary file, so in patch mode
# give spatch one file per group, as --dir does); file -> include_spot()
# (spatch also reads the files given with --include, as
# scripts/coccicheck does); the file being converted.
closers_of = {}
openers_of = {}
good = set()
bad = set()
candidate_fns = set()
taken = set()
declarable = set()
converted = set()
declared = set()
spots = {}
main_file = None

def reset():
    global main_file
    for state in (closers_of, openers_of, good, bad, candidate_fns, taken,
                  declarable, converted, declared, spots):
        state.clear()
    main_file = None

_comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
_inc = re.compile(r'\s*#\s*include\s*([<"][^>"]+[>"])')
_cond = re.compile(r'\s*#\s*(if|ifdef|ifndef|endif)\b\s*(\w*)')
_define = re.compile(r'\s*#\s*define\s+(\w+)')

def include_spot(path):
    """('have', 0) if <linux/seq_buf.h> is included, else (kind, line) of
    the last unconditional <linux/...>, other <...> or "..." include,
    which is where spatch adds after a pattern matching it. An include
    guard does not count as a condition. None without such an include,
    or if it sits inside a declaration (x-macro headers).
    """
    with open(path, errors='replace') as f:
        text = f.read()
    lines = _comment.sub(lambda m: '\n' * m.group(0).count('\n'),
                         text).split('\n')
    depth, cond, closed, last_endif, incs = 0, None, None, None, []
    for n, l in enumerate(lines, 1):
        m = _cond.match(l)
        if m and m.group(1) == 'endif':
            depth -= 1
            if depth == 0 and closed is None:
                closed = n
            last_endif = n
        elif m:
            cond = cond or (n, m.group(1), m.group(2), bool(incs))
            depth += 1
        else:
            m = _inc.match(l)
            if m:
                incs.append((depth, n, m.group(1)))
    if any(name == '<linux/seq_buf.h>' for _, _, name in incs):
        return ('have', 0)
    # A guard is the first conditional, #ifndef X and #define X, before
    # any include and closed by the last #endif.
    top = 0
    if (cond and cond[1] == 'ifndef' and not cond[3] and
            closed == last_endif and cond[0] < len(lines)):
        m = _define.match(lines[cond[0]])
        if m and m.group(1) == cond[2]:
            top = 1
    for kind, prefix in (('linux', '<linux/'), ('sys', '<'), ('local', '"')):
        found = [n for d, n, name in incs
                 if d == top and name.startswith(prefix)]
        if found:
            n = found[-1]
            before = [l.strip() for l in lines[:n - 1] if l.strip()]
            if before and before[-1][-1] in '=,({[\\':
                return None
            return (kind, n)
    return None

def locate_include(p):
    if p[0].file not in spots:
        spots[p[0].file] = include_spot(p[0].file)

def _include_at(p, kind):
    return (p[0].file == main_file and
            spots.get(main_file) == (kind, int(p[0].line)))

def include_linux(p):
    return _include_at(p, 'linux')

def include_sys(p):
    return _include_at(p, 'sys')

def include_local(p):
    return _include_at(p, 'local')

// Runs once per file, before the other rules.
@script:python@
@@
reset()

// Only runs with -D line_buf_size=N.
@script:python@
size << virtual.line_buf_size;
@@
buf_size = size

@inc_sys@
position p;
@@
#include <...>@p

@script:python@
p << inc_sys.p;
@@
locate_include(p)

@inc_local@
position p;
@@
#include "..."@p

@script:python@
p << inc_local.p;
@@
locate_include(p)

// Rule 1: printk(KERN_CONT ...) -> pr_cont(...); the patch rule comes
// last, so that rule 2 sees the input file.

@kcont_r depends on report@
expression fmt : script:python () { kern_cont_text(fmt) is not None };
position p;
@@
printk@p(fmt, ...)

@script:python depends on report@
p << kcont_r.p;
@@
print_candidate(p, "WARNING: printk(KERN_CONT ...) can be pr_cont(...)")

// Rule 2: opener, pr_cont() or printk(KERN_CONT ...) pieces, closer
// -> seq_buf
//
// Candidates first: an opener and a closer that some clean path joins.
// Binding the closer under forall would make spatch try every
// combination of closers on different paths, which can take minutes.

@grp exists@
identifier op : script:python () { is_opener(op) };
expression ofmt : script:python () { opener_fmt(ofmt) };
expression pbad : script:python () { not piece_pr(pbad) };
expression kbad : script:python () { not piece_k(kbad) };
expression cfmt : script:python () { closer_pr(cfmt) };
expression kcfmt : script:python () { closer_k(kcfmt) };
identifier pf : script:python () { printer(pf) };
expression callee : script:python () { other_callee(callee) };
position p1, p2;
@@
op@p1(ofmt, ...);
... when != pr_cont(pbad, ...)
    when != printk(kbad, ...)
    when != pf(...)
    when != callee(...);
(
pr_cont@p2(cfmt, ...);
|
printk@p2(kcfmt, ...);
)

@script:python@
p1 << grp.p1;
p2 << grp.p2;
@@
closers_of.setdefault(key(p1), set()).add(key(p2))
openers_of.setdefault(key(p2), set()).add(key(p1))
candidate_fns.add(fn_of(p1))

@all_paths@
position grp.p1, grp.p2, pa;
identifier grp.op;
expression pbad : script:python () { not piece_pr(pbad) };
expression kbad : script:python () { not piece_k(kbad) };
identifier pf : script:python () { printer(pf) };
expression callee : script:python () { other_callee(callee) };
@@
op@p1@pa(...);
... when strict
    when != pr_cont(pbad, ...)
    when != printk(kbad, ...)
    when != pf(...)
    when != callee(...);
\(pr_cont@p2(...);\|printk@p2(...);\)

@script:python@
p1 << grp.p1;
pa << all_paths.pa;
@@
good.add(key(p1))

// No print can come between opener and closer, so each piece is on a
// path from the opener to the closer without another opener. The opener
// dominating the closer, and the closer not being reached again without
// the opener, thus also cover the pieces.

@bad_entry exists@
position grp.p1, grp.p2;
identifier grp.op;
identifier f;
@@
f(...) {
... when != op@p1(...)
\(pr_cont@p2(...)\|printk@p2(...)\)
... when any
}

@script:python@
p1 << grp.p1;
f << bad_entry.f;
@@
bad.add(key(p1))

@bad_again exists@
position grp.p1, grp.p2, pb;
identifier grp.op;
@@
\(pr_cont@p2@pb(...)\|printk@p2@pb(...)\)
... when != op@p1(...)
\(pr_cont@p2(...)\|printk@p2(...)\)

@script:python@
p1 << grp.p1;
pb << bad_again.pb;
@@
bad.add(key(p1))

// Functions already using the names of the added locals.

@taken_use@
position pf : script:python () { fn_of(pf) in candidate_fns };
identifier f;
identifier nm =~ "^(line|line_buf)$";
@@
f@pf(...) { <+... nm ...+> }

@script:python@
f << taken_use.f;
pf << taken_use.pf;
@@
taken.add((pf[0].file, f))

@taken_param@
position pf : script:python () { fn_of(pf) in candidate_fns };
identifier f;
identifier nm =~ "^(line|line_buf)$";
type T;
@@
f@pf(..., T nm, ...) { ... }

@script:python@
f << taken_param.f;
pf << taken_param.pf;
@@
taken.add((pf[0].file, f))

@taken_decl exists@
position pf : script:python () { fn_of(pf) in candidate_fns };
identifier f;
identifier nm =~ "^(line|line_buf)$";
type T;
expression E;
@@
f@pf(...) {
... when any
(
T nm;
|
T nm = E;
)
... when any
}

@script:python@
f << taken_decl.f;
pf << taken_decl.pf;
@@
taken.add((pf[0].file, f))

// The buffer is declared before the first declaration, or before the
// first statement if there is none; other functions are not converted.

@decl_ok@
position pf : script:python () { fn_of(pf) in candidate_fns };
identifier f, x;
type T;
expression E;
statement S;
@@
f@pf(...) {
(
  T x;
|
  T x = E;
|
  S
)
  ... when any
}

@script:python@
f << decl_ok.f;
pf << decl_ok.pf;
@@
declarable.add((pf[0].file, f))

@script:python filt@
p1 << grp.p1;
p2 << grp.p2;
op << grp.op;
ofmt << grp.ofmt;
lvl;
nfmt;
@@
level = opener_level(op, ofmt)
fn = fn_of(p1)
if (level is None or key(p1) not in good or key(p1) in bad or
    len(closers_of[key(p1)]) != 1 or len(openers_of[key(p2)]) != 1 or
    (p1[0].file, fn) in taken or (p1[0].file, fn) not in declarable or
    spots.get(p1[0].file) is None):
    cocci.include_match(False)
else:
    main_file = p1[0].file
    converted.add(fn)
    coccinelle.lvl = cocci.make_ident(level)
    # The format of a printk() opener without its level.
    coccinelle.nfmt = cocci.make_ident(ofmt.strip()[len(level):].strip()
                                       if op.strip() == 'printk' else '')

@script:python depends on report@
p1 << grp.p1;
lvl << filt.lvl;
@@
print_candidate(p1, "WARNING: pr_cont() line can be built in a struct seq_buf and printed with seq_buf_do_printk(%s)" % lvl)

@conv depends on patch@
position grp.p1, grp.p2;
identifier grp.op;
expression grp.ofmt;
identifier filt.nfmt, filt.lvl;
expression bare : script:python () { bare_level(bare) };
expression kc2 : script:python () { kern_cont_text(kc2) is not None };
expression kc3 : script:python () { kern_cont_text(kc3) is not None };
fresh identifier kfmt2 = script:python (kc2) { kern_cont_text(kc2) };
fresh identifier kfmt3 = script:python (kc3) { kern_cont_text(kc3) };
expression list es1, es2, es3;
@@
(
- printk@p1(bare);
+ seq_buf_init(&line, line_buf, sizeof(line_buf));
|
- printk@p1(ofmt, es1);
+ seq_buf_init(&line, line_buf, sizeof(line_buf));
+ seq_buf_printf(&line, nfmt, es1);
|
- op@p1(ofmt, es1);
+ seq_buf_init(&line, line_buf, sizeof(line_buf));
+ seq_buf_printf(&line, pr_fmt(ofmt), es1);
)
<...
(
- pr_cont(es2)
+ seq_buf_printf(&line, es2)
|
- printk(kc2, es2)
+ seq_buf_printf(&line, kfmt2, es2)
)
...>
(
- pr_cont@p2(es3);
+ seq_buf_printf(&line, es3);
+ seq_buf_do_printk(&line, lvl);
|
- printk@p2(kc3, es3);
+ seq_buf_printf(&line, kfmt3, es3);
+ seq_buf_do_printk(&line, lvl);
)

@decl_first depends on patch@
position pf : script:python () { fn_of(pf) in converted };
identifier f, x;
type T;
expression E;
fresh identifier size = script:python () { buf_size };
@@
f@pf(...) {
+ char line_buf[size];
+ struct seq_buf line;
(
  T x;
|
  T x = E;
)
  ... when any
}

@script:python@
f << decl_first.f;
@@
declared.add(f)

@decl_stmt depends on patch@
position pf : script:python () { fn_of(pf) in converted - declared };
identifier f;
statement S;
fresh identifier size = script:python () { buf_size };
@@
f@pf(...) {
+ char line_buf[size];
+ struct seq_buf line;
+
  S
  ... when any
}

@inc_add_linux depends on patch && conv@
position p : script:python () { include_linux(p) };
@@
#include <linux/...>@p
+ #include <linux/seq_buf.h>

@inc_add_sys depends on patch && conv@
position p : script:python () { include_sys(p) };
@@
#include <...>@p
+ #include <linux/seq_buf.h>

@inc_add_local depends on patch && conv@
position p : script:python () { include_local(p) };
@@
#include "..."@p
+ #include <linux/seq_buf.h>

// include_spot() and spatch disagreeing is a bug here; say so rather
// than leave a file that does not build.
@script:python depends on patch && conv && !inc_add_linux && !inc_add_sys && !inc_add_local@
@@
if spots[main_file] != ('have', 0):
    sys.stderr.write('pr_cont.cocci: #include <linux/seq_buf.h> not added\n')

@kcont depends on patch@
expression fmt : script:python () { kern_cont_text(fmt) is not None };
expression list es;
fresh identifier nfmt = script:python (fmt) { kern_cont_text(fmt) };
@@
- printk(fmt, es)
+ pr_cont(nfmt, es)
