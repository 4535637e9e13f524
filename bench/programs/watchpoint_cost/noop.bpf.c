// SPDX-License-Identifier: PostgreSQL
/*
 * noop.bpf.c
 *		Bench-only: a perf_event program that does nothing, so the benchmark
 *		can split a hit's cost into the kernel's BPF dispatch floor and the
 *		work of our real program (bpf/wait_watch.bpf.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char		LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("perf_event")
int
on_write_noop(void *ctx)
{
	return 0;
}
