// SPDX-License-Identifier: GPL-2.0-only
/// Find printk entry points that bypass the per-context dispatcher
///
/// vprintk() keeps messages printed in NMI or in a printk_safe section
/// away from the console drivers and their locks. vprintk_emit() and
/// vprintk_store() do not, so code outside kernel/printk/ calling them
/// directly, or taking their address, can deadlock when it prints from
/// such a context; dev_vprintk_emit() is one in 6.1.
///
/// kernel/printk/ implements the dispatcher and is not reported. The
/// check looks for "kernel/printk/" in the file name spatch is given,
/// so a file of kernel/printk/ named without that directory (spatch run
/// from inside it) is reported too.
//
// Confidence: High
// Copyright: (C) 2026 printk maintainer tree contributors
// Comments: A report, not a patch: which entry point is right depends
//  on the caller.
// Options: --no-includes --include-headers
// Keywords: printk, vprintk_emit, vprintk_store, NMI, printk_safe

virtual context
virtual org
virtual report

@initialize:python@
@@
import re

_printk_dir = re.compile(r'(^|/)kernel/printk/')

def outside_printk(p):
    return _printk_dir.search(p[0].file) is None

@depends on context@
identifier fn = {vprintk_emit, vprintk_store};
position p : script:python () { outside_printk(p) };
@@

* fn@p

@r depends on org || report@
identifier fn = {vprintk_emit, vprintk_store};
position p : script:python () { outside_printk(p) };
@@

fn@p

@script:python depends on org@
fn << r.fn;
p << r.p;
@@
cocci.print_main("%s() bypasses the printk context dispatcher" % fn, p)

@script:python depends on report@
fn << r.fn;
p << r.p;
@@
print("%s:%s: WARNING: %s() bypasses the printk context dispatcher vprintk()"
      % (p[0].file, p[0].line, fn))
