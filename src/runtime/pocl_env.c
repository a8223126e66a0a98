/* clvision — PoCL's CPU-driver thread pinning, decided once before clvision
 * first touches an OpenCL platform.
 *
 * PoCL's CPU ("pthread") driver starts one worker thread per compute unit
 * when the platform is first enumerated, with no CPU affinity unless
 * POCL_AFFINITY=1 (then worker i pins itself to CPU i). Unpinned, Linux
 * often wakes both workers of a 2-CPU machine on the CPU they last ran on,
 * the same one, for every command: such a process runs its kernels at one
 * core's speed for its whole life (measured in bench/RESULTS.md, "PoCL
 * without variables"). So clvision sets POCL_AFFINITY=1 when the user has
 * not set it — and only when pinning worker i to CPU i is sound: the
 * process may run on exactly CPUs 0..N-1 (N online CPUs; a taskset or a
 * cpuset would otherwise be escaped or, in a cgroup, make PoCL abort on
 * EINVAL) and no POCL_MAX_PTHREAD_COUNT / POCL_PTHREAD_MIN_THREADS asks for
 * more workers than CPUs. The variable means nothing to other OpenCL
 * implementations. The decision is kept as a sentence for
 * clv_pocl_affinity_note(). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char note[256];
static atomic_int decided; /* note is written, once */

/* A PoCL worker-count variable the user set, if it asks for more workers
 * than ncpu (or is not a plain positive count): its name, else NULL. */
static const char *too_many_workers(long ncpu, const char **value)
{
    static const char *const names[] = {"POCL_MAX_PTHREAD_COUNT", "POCL_PTHREAD_MIN_THREADS"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (!v)
            continue;
        char *end = NULL;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || n < 1 || n > ncpu) {
            *value = v;
            return names[i];
        }
    }
    return NULL;
}

/* CPUs 0..ncpu-1 and no other in the process's affinity mask: 1; else 0
 * with the reason in why. */
static int mask_is_all_cpus(long ncpu, char *why, size_t size)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(why, size, "sched_getaffinity failed (%s)", strerror(errno));
        return 0;
    }
    int count = CPU_COUNT(&set);
    int low = 1;
    for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
        low = low && CPU_ISSET((int)c, &set);
    if (count != ncpu || !low) {
        snprintf(why, size, "the process may run on %d CPU(s), not exactly CPUs 0-%ld (taskset or "
                 "cpuset); PoCL would pin worker i to CPU i outside them", count, ncpu - 1);
        return 0;
    }
    return 1;
}

static void decide_note(void);

static void decide(void)
{
    decide_note();
    atomic_store_explicit(&decided, 1, memory_order_release);
}

static void decide_note(void)
{
    const char *user = getenv("POCL_AFFINITY");
    if (user) {
        snprintf(note, sizeof note, "POCL_AFFINITY=%.64s left as the user set it", user);
        return;
    }
#ifdef __linux__
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2) {
        snprintf(note, sizeof note, "POCL_AFFINITY not set: %ld online CPU(s), nothing to spread",
                 ncpu);
        return;
    }
    const char *value = NULL;
    const char *var = too_many_workers(ncpu, &value);
    if (var) {
        snprintf(note, sizeof note,
                 "POCL_AFFINITY not set: %s=%.32s may ask PoCL for more workers than the %ld "
                 "CPUs to pin them to", var, value, ncpu);
        return;
    }
    char why[192];
    if (!mask_is_all_cpus(ncpu, why, sizeof why)) {
        snprintf(note, sizeof note, "POCL_AFFINITY not set: %s", why);
        return;
    }
    if (setenv("POCL_AFFINITY", "1", 0) != 0) {
        snprintf(note, sizeof note, "POCL_AFFINITY not set: setenv failed (%s)", strerror(errno));
        return;
    }
    snprintf(note, sizeof note,
             "POCL_AFFINITY=1 set by clvision (PoCL's CPU workers pinned one per CPU, 0-%ld)",
             ncpu - 1);
#else
    snprintf(note, sizeof note, "POCL_AFFINITY not set: PoCL pins threads on Linux only");
#endif
}

void clv__pocl_env_prepare(void)
{
    /* pthread_once only fails for invalid arguments. */
    (void)pthread_once(&once, decide);
}

CLV_API const char *clv_pocl_affinity_note(void)
{
    if (!atomic_load_explicit(&decided, memory_order_acquire))
        return "not decided yet: clvision has not enumerated OpenCL platforms in this process";
    return note;
}
