// SPDX-License-Identifier: GPL-2.0
/*
 * init.c - guest side of the printk_safe boot tests
 *
 * Runs as /init of the test initramfs. For each scenario it has the
 * kernel's printk_safe selftest (CONFIG_PRINTK_SAFE_SELFTEST) print from a
 * dangerous place, reads what arrived in /dev/kmsg, checks it with exact
 * counts and reports KTAP (Documentation/dev-tools/ktap.rst). KTAP lines
 * are written to /dev/kmsg, so that each reaches the console as one line.
 *
 * Kernel command line:
 *   pstest.only=A,B   run only scenarios A and B, in table order (the panic
 *                     and planted ones run only this way)
 *   pstest.from=N     start at the Nth scenario of the run, after a hang in
 *                     an earlier one
 *   pstest.lines=N    lines per CPU and context for "flood"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORDS	16384
#define TAG		"printk_safe_test: "

struct record {
	unsigned long long seq;
	unsigned long long ts;		/* microseconds */
	int facility;
	char caller[16];		/* "T<pid>" or "C<cpu>" */
	char *text;
};

static struct record records[MAX_RECORDS];
static int nr_records;
static int kmsg_in = -1, kmsg_out = -1;
static int ncpus;
static const char *scenario;	/* the one running */
static const char *flood;	/* records of a flood: not kept, may be overwritten */
static char reasons[2048];	/* why it failed */

static void out(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "<5>");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (write(kmsg_out, line, n) < 0)
		perror("write /dev/kmsg");
}

static void fail(const char *fmt, ...)
{
	size_t n = strlen(reasons);
	va_list ap;

	if (n)
		n += snprintf(reasons + n, sizeof(reasons) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(reasons + n, sizeof(reasons) - n, fmt, ap);
	va_end(ap);
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Returns 0 or the errno of the open() or write(). */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err;

	if (fd < 0)
		return errno;
	err = write(fd, s, strlen(s)) < 0 ? errno : 0;
	close(fd);
	return err;
}

/* Forget what was read so far and read only what comes next. */
static void window_start(void)
{
	int i;

	for (i = 0; i < nr_records; i++)
		free(records[i].text);
	nr_records = 0;
	lseek(kmsg_in, 0, SEEK_END);
}

/* "prio,seq,ts,flags[,caller=X];text\n[ KEY=VALUE\n]..." */
static void parse_record(char *buf)
{
	struct record *r = &records[nr_records];
	char *text = strchr(buf, ';'), *caller, *nl;
	unsigned int prio;

	if (!text || nr_records == MAX_RECORDS)
		return;
	*text++ = '\0';
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (flood && strstr(text, flood))
		return;
	if (sscanf(buf, "%u,%llu,%llu", &prio, &r->seq, &r->ts) != 3)
		return;
	r->facility = prio >> 3;
	caller = strstr(buf, "caller=");
	snprintf(r->caller, sizeof(r->caller), "%s", caller ? caller + 7 : "");
	r->text = strdup(text);
	nr_records++;
}

/* Read all records available now; returns how many. */
static int read_records(void)
{
	char buf[8192];
	int n = 0;
	ssize_t len;

	for (;;) {
		len = read(kmsg_in, buf, sizeof(buf) - 1);
		if (len < 0 && errno == EPIPE) {
			if (!flood)
				fail("records overwritten before they were read");
			continue;
		}
		if (len <= 0)
			return n;
		buf[len] = '\0';
		parse_record(buf);
		n++;
	}
}

/* Index of the first kernel record containing @s from @from on, or -1. */
static int find(const char *s, int from)
{
	int i;

	for (i = from; i < nr_records; i++)
		if (records[i].facility == 0 && strstr(records[i].text, s))
			return i;
	return -1;
}

/* @at: each index of a kernel record containing @s, in order. */
#define for_each_record(at, s) \
	for ((at) = find((s), 0); (at) >= 0; (at) = find((s), (at) + 1))

static int count(const char *s)
{
	int i, n = 0;

	for_each_record(i, s)
		n++;
	return n;
}

/*
 * Read until @marker arrives (or for @timeout_ms without a marker), then
 * until nothing came for 300 ms.
 */
static int collect(const char *marker, int timeout_ms)
{
	int quiet = 0, waited = 0;

	while ((!marker || find(marker, 0) < 0) && waited < timeout_ms) {
		read_records();
		msleep(10);
		waited += 10;
	}
	while (quiet < 300) {
		quiet = read_records() ? 0 : quiet + 10;
		msleep(10);
	}
	return !marker || find(marker, 0) >= 0 ? 0 : -1;
}

static void expect_count(const char *s, int want)
{
	int n = count(s);

	if (n != want)
		fail("'%s' %d times, want %d", s, n, want);
}

static int lost_reported(void)
{
	int i, n, lost = 0;

	for_each_record(i, "Lost ")
		if (sscanf(records[i].text, "Lost %d message(s)!", &n) == 1)
			lost += n;
	return lost;
}

static void expect_no_loss(void)
{
	int lost = lost_reported();

	if (lost) {
		out("# %s: lost %d\n", scenario, lost);
		fail("%d message(s) reported lost", lost);
	}
}

/* The messages "<name> 0", "<name> 1", ... arrive once each, in order. */
static void expect_sequence(const char *name, int last)
{
	unsigned long long prev = 0;
	char s[64];
	int i, at;

	for (i = 0; i <= last; i++) {
		snprintf(s, sizeof(s), TAG "%s %d", name, i);
		expect_count(s, 1);
		at = find(s, 0);
		if (at < 0)
			continue;
		if (records[at].ts < prev)
			fail("'%s' has an earlier timestamp than its predecessor", s);
		prev = records[at].ts;
	}
}

/* Run a kernel scenario and collect its records; returns its result. */
static int run_kernel(const char *name)
{
	char marker[64];
	int at, err, ret = -1;

	window_start();
	/* A failing scenario's error shows in its done marker. */
	err = write_file("/sys/kernel/debug/printk_safe_test/run", name);
	if (err == ENOENT || err == EINVAL)
		fail("cannot run %s: %s", name, strerror(err));
	snprintf(marker, sizeof(marker), TAG "%s done ", name);
	if (collect(marker, 5000)) {
		fail("no '%s' record", marker);
		return -1;
	}
	at = find(marker, 0);
	sscanf(records[at].text + strlen(marker), "%d", &ret);
	if (ret)
		fail("scenario returned %d", ret);
	return ret;
}

static void check_recursion(void)
{
	run_kernel("recursion");
	expect_sequence("recursion", 5);
	expect_count(TAG "recursion warn", 1);
	expect_count("WARNING: CPU:", 1);
	expect_no_loss();
}

/* Scenarios that print "<name> 0" and, from the injected point, "<name> 1". */
static void check_pair(const char *name, int warns)
{
	char s[64];

	run_kernel(name);
	expect_sequence(name, 1);
	snprintf(s, sizeof(s), TAG "%s warn", name);
	expect_count(s, warns);
	expect_count("WARNING: CPU:", warns);
	expect_no_loss();
}

static void check_sem_lock(void) { check_pair("sem_lock", 1); }
static void check_owner(void) { check_pair("owner", 0); }
static void check_sem_up(void) { check_pair("sem_up", 0); }
static void check_console_write(void) { check_pair("console_write", 1); }
static void check_dev_err_safe(void) { check_pair("dev_err_safe", 0); }
static void check_dev_err_nmi(void) { check_pair("dev_err_nmi", 0); }

/*
 * A WARN from vsnprintf() inside the store of an NMI message: the nested
 * lines and the outer one arrive whole. Another inside a buffered store:
 * the outer line arrives whole and the nested ones are reported lost.
 */
static void check_nested_store(void)
{
	run_kernel("nested_store");
	expect_count(TAG "nested_store 0", 1);
	expect_count(TAG "nested_store 1 outer", 1);
	expect_count("precision 16777216 too large", 1);
	expect_count("WARNING: CPU:", 1);
	expect_count("internal error", 0);
	/* The buffered one, whose own WARN is dropped and counted. */
	expect_count(TAG "nested_store 2", 1);
	expect_count("Please remove unsupported", 0);
	if (!lost_reported())
		fail("the WARN nested in the buffered store is not reported lost");
}

/*
 * "<name> produced N": every one of the N lines of <name> ("<name> ... line")
 * is delivered or reported lost; returns the number reported lost.
 */
static int expect_accounted(const char *name)
{
	int produced = -1, delivered, lost, at;
	char s[64];

	snprintf(s, sizeof(s), TAG "%s produced ", name);
	at = find(s, 0);
	if (at >= 0)
		sscanf(strstr(records[at].text, "produced ") + 9, "%d", &produced);
	delivered = 0;
	for_each_record(at, " line ")
		if (!strncmp(records[at].text, TAG, strlen(TAG)) &&
		    !strncmp(records[at].text + strlen(TAG), name, strlen(name)))
			delivered++;
	lost = lost_reported();
	out("# %s: produced %d delivered %d lost %d\n",
	    name, produced, delivered, lost);
	if (produced < 0)
		fail("no produced count");
	else if (produced != delivered + lost)
		fail("produced %d != delivered %d + reported lost %d",
		     produced, delivered, lost);
	return lost;
}

/* NMI and printk_safe output on every CPU: 6.1 delivers it all. */
static void check_flood(void)
{
	run_kernel("flood");
	if (expect_accounted("flood"))
		fail("lines lost, which 6.1 delivers");
}

/* More buffered lines than the buffer holds: the rest are counted. */
static void check_overflow(void)
{
	run_kernel("overflow");
	if (!expect_accounted("overflow"))
		fail("nothing lost: the buffer did not overflow, nothing tested");
}

static void check_timestamps(void)
{
	static const char *const names[] = { "A", "B", "C", "D", "E" };
	int at[5], i;
	char s[64];

	run_kernel("timestamps");
	for (i = 0; i < 5; i++) {
		snprintf(s, sizeof(s), TAG "timestamps %s", names[i]);
		expect_count(s, 1);
		at[i] = find(s, 0);
		if (at[i] < 0)
			return;
	}
	/* µs timestamps: two records of the same µs have equal ones. */
	for (i = 1; i < 5; i++)
		if (records[at[i]].ts < records[at[i - 1]].ts)
			fail("timestamp of %s before %s", names[i], names[i - 1]);
	/* A, B, C and E come from the task, D from this CPU in NMI. */
	if (records[at[0]].caller[0] != 'T')
		fail("caller of A is '%s', not a task", records[at[0]].caller);
	for (i = 1; i < 5; i++) {
		const char *caller = records[at[i]].caller;

		if (i == 3 ? caller[0] != 'C' : strcmp(caller, records[at[0]].caller))
			fail("caller of %s is '%s'", names[i], caller);
	}
	out("# timestamps: B stored %s C\n",
	    records[at[1]].seq > records[at[2]].seq ? "after" : "before");
	expect_no_loss();
}

static pid_t spin_on_cpu(int cpu)
{
	pid_t pid = fork();
	cpu_set_t set;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;)
		;
}

/* sysrq-l: one complete NMI backtrace per CPU. */
static void check_nmi_backtrace(void)
{
	pid_t spinners[64];
	char s[64];
	int cpu, err;

	write_file("/sys/module/nmi_backtrace/parameters/backtrace_idle", "1");
	/* Idle vCPUs are skipped under TCG: keep the others busy. */
	for (cpu = 1; cpu < ncpus; cpu++)
		spinners[cpu] = spin_on_cpu(cpu);
	msleep(200);
	window_start();
	err = write_file("/proc/sysrq-trigger", "l");
	if (err)
		fail("sysrq-trigger: %s", strerror(err));
	collect(NULL, 3000);
	for (cpu = 1; cpu < ncpus; cpu++) {
		kill(spinners[cpu], SIGKILL);
		waitpid(spinners[cpu], NULL, 0);
	}
	/*
	 * Complete: a header, the task line and, for the CPUs interrupted by
	 * the NMI, their registers (sysrq's own CPU prints its stack only).
	 */
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(s, sizeof(s), "NMI backtrace for cpu %d", cpu);
		expect_count(s, 1);
		strcat(s, " skipped");
		expect_count(s, 0);
		/* "CPU: 0 PID: 1 ..." up to 6.9, "CPU: 0 UID: 0 PID: 1" since */
		snprintf(s, sizeof(s), "CPU: %d ", cpu);
		expect_count(s, 1);
	}
	expect_count("RIP: ", ncpus - 1);
	expect_no_loss();
}

/*
 * The other CPUs spin with interrupts off, as hard-locked ones do: their
 * backtraces, and what they buffered before, are in the ringbuffer before
 * trigger_all_cpu_backtrace() returns, not when they run their irq_work.
 */
/* No record containing @s comes after record @limit. */
static void expect_before(const char *s, int limit)
{
	int at;

	for_each_record(at, s)
		if (at > limit)
			fail("'%s' stored after '%s'", records[at].text,
			     records[limit].text);
}

static void check_backtrace_irqoff(void)
{
	int cpu, returned;
	char s[64];

	run_kernel("backtrace_irqoff");
	returned = find(TAG "backtrace_irqoff returned", 0);
	if (returned < 0) {
		fail("no 'returned' record");
		return;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(s, sizeof(s), "NMI backtrace for cpu %d", cpu);
		expect_count(s, 1);
		expect_before(s, returned);
	}
	/* The CPU that asked did not spin: the others buffered a line. */
	expect_count(" buffered", ncpus - 1);
	expect_before(" buffered", returned);
	expect_no_loss();
}

/* suppress_printk set: nothing printed meanwhile arrives, from any context. */
static void check_suppress(void)
{
	run_kernel("suppress");
	expect_count(TAG "suppress 0", 1);
	expect_count(TAG "suppress 1", 0);
	expect_no_loss();
}

/* An oops in a printk_safe section: kmsg_dump() sees what it printed. */
static void check_kmsg_dump(void)
{
	run_kernel("kmsg_dump");
	expect_count(TAG "kmsg_dump 1 before the oops", 1);
	expect_count(TAG "kmsg_dump 2 dumper saw it", 1);
	expect_no_loss();
}

/* printk() cost per context, for ci/bench.sh. */
static void check_bench(void)
{
	unsigned long long call_ns, total_ns;
	unsigned int calls;
	char context[16];
	int at, n = 0;

	/* 3 x 10^5 records: more than the ringbuffer holds, by design. */
	flood = TAG "bench line ";
	run_kernel("bench");
	flood = NULL;
	for_each_record(at, TAG "bench ") {
		if (sscanf(strstr(records[at].text, "bench "),
			   "bench %15s calls %u call_ns %llu total_ns %llu",
			   context, &calls, &call_ns, &total_ns) != 4 || !calls)
			continue;
		out("# bench: %s calls %u call_ns %.1f total_ns %.1f\n", context,
		    calls, (double)call_ns / calls, (double)total_ns / calls);
		n++;
	}
	if (n != 3)
		fail("%d bench results, want 3", n);
}

/* sysrq-h: the help, built from pieces, arrives as one whole record. */
static void check_sysrq_help(void)
{
	int at, err;

	window_start();
	err = write_file("/proc/sysrq-trigger", "h");
	if (err)
		fail("sysrq-trigger: %s", strerror(err));
	collect(NULL, 500);
	expect_count("HELP : ", 1);
	at = find("HELP : ", 0);
	if (at >= 0 && !strstr(records[at].text, "show-backtrace-all-active-cpus(l) "))
		fail("help line incomplete: '%s'", records[at].text);
	expect_no_loss();
}

/* These end the boot; the host checks the console. */
/* The running scenario panics: ci/ktap.awk judges the console. */
static void check_panic(void)
{
	run_kernel(scenario);
	fail("still alive after the panic");
}

/* For the harness self-test: a scenario that fails, one that hangs. */
static void check_planted_fail(void)
{
	fail("planted failure");
}

static void check_planted_hang(void)
{
	for (;;)
		pause();
}

static const struct scenario {
	const char *name;
	void (*check)(void);
	int only;		/* run only when named by pstest.only= */
} scenarios[] = {
	{ "recursion",		check_recursion },
	{ "sem_lock",		check_sem_lock },
	{ "owner",		check_owner },
	{ "sem_up",		check_sem_up },
	{ "console_write",	check_console_write },
	{ "timestamps",		check_timestamps },
	{ "flood",		check_flood },
	{ "overflow",		check_overflow },
	{ "nmi_backtrace",	check_nmi_backtrace },
	{ "backtrace_irqoff",	check_backtrace_irqoff },
	{ "suppress",		check_suppress },
	{ "kmsg_dump",		check_kmsg_dump },
	{ "sysrq_help",		check_sysrq_help },
	{ "dev_err_safe",	check_dev_err_safe },
	{ "dev_err_nmi",	check_dev_err_nmi },
	{ "nested_store",	check_nested_store },
	{ "panic",		check_panic, 1 },
	{ "panic_zap",		check_panic, 1 },
	{ "panic_flush_lock",	check_panic, 1 },
	{ "panic_flush_stopped", check_panic, 1 },
	{ "bench",		check_bench, 1 },
	{ "planted_fail",	check_planted_fail, 1 },
	{ "planted_hang",	check_planted_hang, 1 },
};

#define NR_SCENARIOS	(int)(sizeof(scenarios) / sizeof(scenarios[0]))

/* Is @name one of the comma-separated names of @list? */
static int named(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return 1;
	return 0;
}

static void cmdline_arg(const char *key, char *val, size_t size)
{
	char buf[4096], *p;
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	val[0] = '\0';
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return;
	buf[len] = '\0';
	for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
		if (!strncmp(p, key, strlen(key)))
			snprintf(val, size, "%s", p + strlen(key));
}

static void setup(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	kmsg_out = open("/dev/kmsg", O_WRONLY);
	kmsg_in = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	/*
	 * The scenarios' NMI handlers print a lot: keep x86 from adding
	 * "NMI handler took too long" messages to what they count.
	 */
	write_file("/sys/kernel/debug/x86/nmi_longest_ns", "10000000000");
}

int main(void)
{
	char only[1024], from[16], lines[16];
	int i, n = 0, first;

	setup();
	cmdline_arg("pstest.only=", only, sizeof(only));
	cmdline_arg("pstest.from=", from, sizeof(from));
	cmdline_arg("pstest.lines=", lines, sizeof(lines));
	first = from[0] ? atoi(from) : 1;
	if (lines[0])
		write_file("/sys/module/printk_safe_selftest/parameters/flood_lines",
			   lines);

	for (i = 0; i < NR_SCENARIOS; i++)
		if (only[0] ? named(only, scenarios[i].name) : !scenarios[i].only)
			n++;
	out("KTAP version 1\n");
	out("# pstest: %d CPUs\n", ncpus);
	out("1..%d\n", n);
	for (i = 0, n = 0; i < NR_SCENARIOS; i++) {
		const struct scenario *s = &scenarios[i];

		if (only[0] ? !named(only, s->name) : s->only)
			continue;
		if (++n < first) {
			out("ok %d %s # SKIP run in an earlier boot\n", n, s->name);
			continue;
		}
		reasons[0] = '\0';
		scenario = s->name;
		out("# pstest: start %d %s\n", n, s->name);
		s->check();
		if (reasons[0])
			out("not ok %d %s # %s\n", n, s->name, reasons);
		else
			out("ok %d %s\n", n, s->name);
	}
	out("# pstest: end\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
