"""What a job is planned with: the options, the binary under test, the inputs, configs and runner."""
import os

from .shell import png_size


class Context:
    def __init__(self, args, binary, built, inputs, cfg, runner):
        self.args, self.binary, self.built = args, binary, built
        self.inputs, self.cfg, self.runner = inputs, cfg, runner
        self.work, self.threads = args.work, args.threads
        self.out = os.path.join(args.work, "out")
        os.makedirs(self.out, exist_ok=True)
        self.logo = inputs.logo()
        self.logo_wh = png_size(self.logo)

    def wants(self, number):
        """Whether `--jobs` asked for job `number`."""
        return number in self.args.jobs

    def timed(self, cmd, name):
        """Runs one command under the runner's timing (for jobs that time commands their own way)."""
        return self.runner.run(cmd, name)
