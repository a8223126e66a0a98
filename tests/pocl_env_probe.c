/* Helper of test_pocl_env.py: creates a context on the default device and
 * prints what the process then sees — POCL_AFFINITY, the library's note,
 * the platform, and the CPUs each thread but the main one may run on (with
 * PoCL's CPU driver those are its worker threads: clvision starts none). */
#include <clvision/clvision.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Cpus_allowed_list line of /proc/self/task/TID/status into out. */
static int allowed_cpus(const char *tid, char *out, size_t size)
{
    char path[300], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            char *v = line + 18;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, size, "%s", v);
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

int main(void)
{
    clv_context *ctx = NULL;
    printf("before=%s\n", clv_pocl_affinity_note());
    clv_status s = clv_context_create(NULL, &ctx);
    if (s != CLV_OK) {
        fprintf(stderr, "pocl_env_probe: %s: %s\n", clv_status_string(s),
                clv_context_create_error());
        return 1;
    }
    const char *v = getenv("POCL_AFFINITY");
    printf("env=%s\n", v ? v : "(unset)");
    printf("note=%s\n", clv_pocl_affinity_note());
    printf("platform=%s\n", clv_context_platform_name(ctx));
    printf("device=%s\n", clv_context_device_name(ctx));

    char self[32];
    snprintf(self, sizeof self, "%ld", (long)getpid());
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        perror("pocl_env_probe: /proc/self/task");
        clv_context_release(ctx);
        return 1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
            continue;
        char cpus[256];
        if (allowed_cpus(e->d_name, cpus, sizeof cpus) != 0) {
            fprintf(stderr, "pocl_env_probe: no Cpus_allowed_list for thread %s\n", e->d_name);
            rc = 1;
            continue;
        }
        printf("worker=%s\n", cpus);
    }
    closedir(d);
    clv_context_release(ctx);
    return rc;
}
