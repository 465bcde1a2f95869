#define _GNU_SOURCE
#include "process_guard.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

// Temporary files: fixed slots, so the handlers read them without allocating or locking.
// Writers (register, forget) take a mutex among themselves; a slot's path is written
// before it is marked used and marked unused before it is reused, so a handler reading
// concurrently sees either no path or a whole one.
enum { SLOT_COUNT = 256 };
static char slot_paths[SLOT_COUNT][PATH_MAX];
static char slot_targets[SLOT_COUNT][PATH_MAX];
static atomic_int slot_used[SLOT_COUNT];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static atomic_int interrupt_signal;
static atomic_int drain_signal;
static atomic_int drain_mode;
static atomic_int hangup_reloads;
static atomic_uint reload_requests;
static atomic_int installed;

static const int termination_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int fatal_signals[] = { SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE };
static struct sigaction previous_fatal[sizeof fatal_signals / sizeof fatal_signals[0]];

static void say(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;  // stderr closed or full: nothing else to do from here
        text += written;
        length -= (size_t)written;
    }
}

/// Writes a path with control characters shown as '?', keeping the message on one line.
static void say_path(const char *path) {
    char buffer[256];
    size_t used = 0;
    for (const char *c = path; *c; c++) {
        buffer[used++] = (unsigned char)*c < 0x20 || *c == 0x7F ? '?' : *c;
        if (used == sizeof buffer - 1) { buffer[used] = 0; say(buffer); used = 0; }
    }
    buffer[used] = 0;
    say(buffer);
}

void vwm_guard_remove_all(void) {
    for (int i = 0; i < SLOT_COUNT; i++) {
        if (atomic_load(&slot_used[i])) {
            unlink(slot_paths[i]);
            atomic_store(&slot_used[i], 0);
        }
    }
}

int vwm_guard_remember(const char *path, const char *target) {
    size_t length = strlen(path), target_length = strlen(target);
    if (length >= PATH_MAX || target_length >= PATH_MAX) return -1;
    pthread_mutex_lock(&slot_lock);
    int found = -1;
    for (int i = 0; i < SLOT_COUNT; i++) {
        if (!atomic_load(&slot_used[i])) { found = i; break; }
    }
    if (found >= 0) {
        memcpy(slot_paths[found], path, length + 1);
        memcpy(slot_targets[found], target, target_length + 1);
        atomic_store(&slot_used[found], 1);
    }
    pthread_mutex_unlock(&slot_lock);
    return found;
}

void vwm_guard_forget(int slot) {
    if (slot < 0 || slot >= SLOT_COUNT) return;
    pthread_mutex_lock(&slot_lock);
    atomic_store(&slot_used[slot], 0);
    pthread_mutex_unlock(&slot_lock);
}

int vwm_guard_interrupt_signal(void) { return atomic_load(&interrupt_signal); }

void vwm_guard_request_interrupt(int signal) {
    int expected = 0;
    atomic_compare_exchange_strong(&interrupt_signal, &expected, signal);
}

void vwm_guard_clear_interrupt(void) { atomic_store(&interrupt_signal, 0); }

int vwm_guard_drain_signal(void) { return atomic_load(&drain_signal); }

void vwm_guard_drain_on_termination(void) { atomic_store(&drain_mode, 1); }

void vwm_guard_reload_on_hangup(void) { atomic_store(&hangup_reloads, 1); }

unsigned int vwm_guard_reload_requests(void) { return atomic_load(&reload_requests); }

static void on_termination(int signal) {
    int expected = 0;
    if (signal == SIGHUP && atomic_load(&hangup_reloads)) {
        // A server asked to re-read its files: counted, never a termination.
        atomic_fetch_add(&reload_requests, 1);
        return;
    }
    if (atomic_load(&drain_mode)) {
        // A server: the first signal asks it to finish what is in flight (work in progress is
        // not interrupted); the second ends it as below.
        if (atomic_compare_exchange_strong(&drain_signal, &expected, signal)) return;
    } else if (atomic_compare_exchange_strong(&interrupt_signal, &expected, signal)) {
        return;
    }
    // A second signal: the job has not stopped in time (or the user insists).
    vwm_guard_remove_all();
    say("videowm: interrupted again; temporary files removed\n");
    _exit(130);
}

/// Whether the process runs under a limit on its memory, so that an allocation failing is
/// the limit's doing rather than a bug (without one, Linux overcommits and an exhausted
/// machine kills the process instead of failing an allocation).
static int memory_is_limited(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) return 1;
    if (getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) return 1;
    return 0;
}

/// Whether 16 MB of address space can still be had: when it cannot, whatever just failed
/// did so because memory ran out (mmap is a plain system call, safe in a handler on Linux).
static int address_space_is_exhausted(void) {
    size_t size = 16u << 20;
    void *probe = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe == MAP_FAILED) return 1;
    munmap(probe, size);
    return 0;
}

/// Whether a fatal signal is the work of an allocation that failed under a memory limit: the
/// Swift runtime (and C++ code such as x265) abort when one fails, and C libraries that do
/// not check an allocation (fontconfig) dereference the null pointer it returned.
static int is_out_of_memory(int signal, const siginfo_t *info) {
    if (!memory_is_limited()) return 0;
    if (signal == SIGABRT) return 1;
    if (signal != SIGSEGV && signal != SIGBUS) return 0;
    uintptr_t address = info ? (uintptr_t)info->si_addr : UINTPTR_MAX;
    return address < 65536 || address_space_is_exhausted();
}

static void on_fatal(int signal, siginfo_t *info, void *context) {
    if (is_out_of_memory(signal, info)) {
        // Name an output that was being written, as every error line names its file.
        const char *target = NULL;
        for (int i = 0; i < SLOT_COUNT && target == NULL; i++) {
            if (atomic_load(&slot_used[i])) target = slot_targets[i];
        }
        say("videowm: error: ");
        if (target) { say_path(target); say(": "); }
        say("out of memory: an allocation failed under the process's memory limit (ulimit -v); "
            "no partial output is left\n");
        vwm_guard_remove_all();
        _exit(71);
    }
    vwm_guard_remove_all();
    size_t count = sizeof fatal_signals / sizeof fatal_signals[0];
    for (size_t i = 0; i < count; i++) {
        if (fatal_signals[i] != signal) continue;
        // Hand the signal to whoever had it before (the Swift runtime's backtracer, or the
        // default action): a fault re-runs its instruction when this returns, and reaches it
        // that way; a signal that was sent (abort's raise, kill) is sent again.
        sigaction(signal, &previous_fatal[i], NULL);
        if (info == NULL || info->si_code <= 0) raise(signal);
        return;
    }
    (void)context;
}

int vwm_guard_install(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1)) return 0;

    // An alternate stack, so a fault from a stack overflow can still be handled.
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        size_t size = 64 * 1024;
        void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory != MAP_FAILED) {
            stack_t alternate = { .ss_sp = memory, .ss_size = size, .ss_flags = 0 };
            sigaltstack(&alternate, NULL);
        }
    }

    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    action.sa_handler = SIG_IGN;
    if (sigaction(SIGPIPE, &action, NULL) != 0) return errno;
    if (sigaction(SIGXFSZ, &action, NULL) != 0) return errno;

    action.sa_handler = on_termination;
    sigset_t termination;
    sigemptyset(&termination);
    for (size_t i = 0; i < sizeof termination_signals / sizeof termination_signals[0]; i++) {
        if (sigaction(termination_signals[i], &action, NULL) != 0) return errno;
        sigaddset(&termination, termination_signals[i]);
    }
    // A parent may have started us with these blocked (a signal mask is inherited through
    // exec); blocked, they would stay pending and never reach the handler. Threads started
    // later inherit this thread's mask.
    pthread_sigmask(SIG_UNBLOCK, &termination, NULL);

    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    action.sa_sigaction = on_fatal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (sigaction(fatal_signals[i], &action, &previous_fatal[i]) != 0) return errno;
    }
    return 0;
}
