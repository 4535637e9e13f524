/*
 * proc_events.c
 *		Netlink proc connector client: subscribe, then drain fork and exit
 *		events without blocking. Only thread-group events matter (a
 *		backend is a process): thread forks and thread exits are skipped.
 *
 * The connector multicasts every fork and exit of the host. A classic BPF
 * socket filter keeps only those of one parent's children, so the daemon
 * is not woken and does not spend a receive call per unrelated process.
 * Classic BPF loads words in network byte order: the message's fields are
 * in host order, so constants are compared in htonl() form.
 */
#include "tracer/proc_events.h"

#include <errno.h>
#include <arpa/inet.h>
#include <linux/cn_proc.h>
#include <linux/filter.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int
pgwt_proc_events_open(void)
{
	int			fd;
	struct sockaddr_nl addr;
	union
	{
		char		buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
		struct nlmsghdr align;
	}			req;
	struct nlmsghdr *nh = &req.align;
	struct cn_msg *cm;
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int			rcvbuf = 4 << 20;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -1;
	/* room for bursts of forks between ticks (ignored when not permitted) */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	memset(&addr, 0, sizeof(addr));
	addr.nl_family = AF_NETLINK;
	addr.nl_groups = CN_IDX_PROC;
	if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) != 0)
		goto fail;
	memset(&req, 0, sizeof(req));
	nh->nlmsg_len = sizeof(req.buf);
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = (uint32_t) getpid();
	cm = NLMSG_DATA(nh);
	cm->id.idx = CN_IDX_PROC;
	cm->id.val = CN_VAL_PROC;
	cm->len = sizeof(op);
	memcpy(cm->data, &op, sizeof(op));
	if (send(fd, req.buf, sizeof(req.buf), 0) != (ssize_t) sizeof(req.buf))
		goto fail;
	return fd;
fail:
	{
		int			e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

/* Offset of a proc_event field in the netlink message. */
#define PE_OFF(field) \
	((uint32_t) (NLMSG_HDRLEN + offsetof(struct cn_msg, data) + offsetof(struct proc_event, field)))

int
pgwt_proc_events_filter_children(int fd, uint32_t parent_tgid)
{
	uint32_t	parent = htonl(parent_tgid);
	/* jump offsets count instructions after the jump: targets are 9, 10 */
	struct sock_filter code[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PE_OFF(what)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_FORK), 0, 2),
		/* 2: a fork by the parent */
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PE_OFF(event_data.fork.parent_tgid)),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, parent, 5, 6),
		/* 4: an exit of the parent itself or of one of its children */
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXIT), 0, 5),
		/* 5 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PE_OFF(event_data.exit.process_tgid)),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, parent, 2, 0),
		/* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PE_OFF(event_data.exit.parent_tgid)),
		/* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, parent, 0, 1),
		/* 9: pass the whole message */
		/* 9 */ BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		/* 10: drop */
		/* 10 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {(unsigned short) (sizeof(code) / sizeof(code[0])), code};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

int
pgwt_proc_events_open_children(uint32_t parent_tgid)
{
	int			fd = pgwt_proc_events_open();

	if (fd >= 0)
		pgwt_proc_events_filter_children(fd, parent_tgid);
	return fd;
}

int
pgwt_proc_events_drain(int fd, const pgwt_proc_event_cb *cb)
{
	union
	{
		char		buf[16384];
		struct nlmsghdr align;
	}			u;
	int			count = 0,
				lost = 0;

	for (;;)
	{
		ssize_t		n = recv(fd, u.buf, sizeof(u.buf), 0);
		struct nlmsghdr *nh;

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
			{
				lost = 1;
				continue;
			}
			break;				/* EAGAIN: drained */
		}
		for (nh = &u.align; NLMSG_OK(nh, (size_t) n); nh = NLMSG_NEXT(nh, n))
		{
			struct cn_msg *cm;
			struct proc_event ev;

			if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_NOOP)
				continue;
			cm = NLMSG_DATA(nh);
			if (cm->len < offsetof(struct proc_event, event_data))
				continue;
			memset(&ev, 0, sizeof(ev));
			memcpy(&ev, cm->data, cm->len < sizeof(ev) ? cm->len : sizeof(ev));
			if (ev.what == PROC_EVENT_FORK &&
				ev.event_data.fork.child_pid == ev.event_data.fork.child_tgid)
			{
				count++;
				if (cb->fork)
					cb->fork(cb->arg, (uint32_t) ev.event_data.fork.parent_tgid,
							 (uint32_t) ev.event_data.fork.child_tgid);
			}
			else if (ev.what == PROC_EVENT_EXIT &&
					 ev.event_data.exit.process_pid == ev.event_data.exit.process_tgid)
			{
				count++;
				if (cb->exit)
					cb->exit(cb->arg, (uint32_t) ev.event_data.exit.process_tgid);
			}
		}
	}
	return lost ? -1 : count;
}

void
pgwt_proc_events_close(int fd)
{
	if (fd >= 0)
		close(fd);
}
