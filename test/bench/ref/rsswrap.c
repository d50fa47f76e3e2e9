/* Runs a command (argv[1], argv[2], ...) in a child made by fork and
   prints, after the command's own output, "rss KB": the child's peak
   resident memory (getrusage's ru_maxrss through wait4). The benchmark
   runs its drivers through it because Linux carries the peak of the
   process that calls execve over to the program it starts: a driver
   started straight from the benchmark (a Go process of gigabytes, which
   spawns with vfork) would report the benchmark's peak, while this
   wrapper's own is a few hundred kilobytes. Exit status: the command's,
   or 125 when it cannot be started. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rsswrap COMMAND [ARG...]\n");
    return 125;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("rsswrap: fork");
    return 125;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror("rsswrap: execvp");
    _exit(125);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("rsswrap: wait4");
    return 125;
  }
  printf("rss %ld\n", ru.ru_maxrss);
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
