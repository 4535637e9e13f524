/*
 * test_proc_filter.c
 *		The proc connector's children filter (tracer/proc_events.c), without
 *		root: crafted connector messages go through a datagram socketpair
 *		whose receiving end carries the filter, then through the drain.
 *		Without the filter every message arrives (the control case), so the
 *		filtered case can fail.
 */
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tracer/proc_events.h"

#define PARENT 4242u

static int	failures;

typedef struct seen
{
	uint32_t	forks[16];
	int			nforks;
	uint32_t	exits[16];
	int			nexits;
} seen;

static void
on_fork(void *arg, uint32_t parent, uint32_t child)
{
	seen	   *s = arg;

	(void) parent;
	if (s->nforks < 16)
		s->forks[s->nforks++] = child;
}

static void
on_exit_ev(void *arg, uint32_t pid)
{
	seen	   *s = arg;

	if (s->nexits < 16)
		s->exits[s->nexits++] = pid;
}

static void
send_event(int fd, const struct proc_event *ev)
{
	union
	{
		char		buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(struct proc_event))];
		struct nlmsghdr align;
	}			m;
	struct cn_msg *cm;

	memset(&m, 0, sizeof(m));
	m.align.nlmsg_len = sizeof(m.buf);
	m.align.nlmsg_type = NLMSG_DONE;
	cm = NLMSG_DATA(&m.align);
	cm->id.idx = CN_IDX_PROC;
	cm->id.val = CN_VAL_PROC;
	cm->len = sizeof(*ev);
	memcpy(cm->data, ev, sizeof(*ev));
	if (send(fd, m.buf, sizeof(m.buf), 0) != (ssize_t) sizeof(m.buf))
		perror("send");
}

static void
fork_ev(int fd, uint32_t parent, uint32_t child_pid, uint32_t child_tgid)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = parent;
	ev.event_data.fork.parent_tgid = parent;
	ev.event_data.fork.child_pid = child_pid;
	ev.event_data.fork.child_tgid = child_tgid;
	send_event(fd, &ev);
}

static void
exit_ev(int fd, uint32_t pid, uint32_t parent)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXIT;
	ev.event_data.exit.process_pid = pid;
	ev.event_data.exit.process_tgid = pid;
	ev.event_data.exit.parent_pid = parent;
	ev.event_data.exit.parent_tgid = parent;
	send_event(fd, &ev);
}

/* Send the same scripted host activity; return what the drain delivered. */
static int
run(int filtered, seen *s)
{
	int			sv[2];
	struct proc_event ev;
	pgwt_proc_event_cb cb = {on_fork, on_exit_ev, s};
	int			n;

	memset(s, 0, sizeof(*s));
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return -1;
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	if (filtered && pgwt_proc_events_filter_children(sv[1], PARENT) != 0)
	{
		perror("SO_ATTACH_FILTER");
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	fork_ev(sv[0], PARENT, 5001, 5001);		/* a backend: kept */
	fork_ev(sv[0], 77, 6001, 6001);			/* another process's child */
	fork_ev(sv[0], PARENT, 5002, PARENT);	/* a thread of the parent */
	exit_ev(sv[0], 6001, 77);				/* unrelated exit */
	exit_ev(sv[0], 5001, PARENT);			/* the backend exits: kept */
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXEC;
	ev.event_data.exec.process_pid = PARENT;
	ev.event_data.exec.process_tgid = PARENT;
	send_event(sv[0], &ev);					/* not a fork or exit */
	exit_ev(sv[0], PARENT, 1);				/* the parent itself: kept */
	n = pgwt_proc_events_drain(sv[1], &cb);
	close(sv[0]);
	close(sv[1]);
	return n;
}

#define CHECK(name, cond) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: %s\n", name, #cond); failures++; } } while (0)

int
main(void)
{
	seen		all,
				kept;
	int			nall = run(0, &all);
	int			nkept = run(1, &kept);

	/* unfiltered: both process forks and all three exits reach the drain */
	CHECK("proc_filter_control_sees_everything",
		  nall == 5 && all.nforks == 2 && all.nexits == 3);
	CHECK("proc_filter_keeps_children_and_parent",
		  nkept == 3 && kept.nforks == 1 && kept.forks[0] == 5001 &&
		  kept.nexits == 2 && kept.exits[0] == 5001 && kept.exits[1] == PARENT);
	return failures ? 1 : 0;
}
