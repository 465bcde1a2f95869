"""The release build of videowm the bench times, made from a snapshot of the sources."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .shell import ROOT, log, sh


def sync_tree(src, dst):
    """Copies src over dst by content (unchanged files keep their mtime, so builds stay incremental)."""
    wanted = set()
    for base, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            rel = os.path.relpath(os.path.join(base, name), src)
            wanted.add(rel)
            s, d = os.path.join(src, rel), os.path.join(dst, rel)
            if os.path.exists(d):
                with open(s, "rb") as a, open(d, "rb") as b:
                    if a.read() == b.read():
                        continue
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d)
            os.utime(d)  # newer than any object built from the old content
    for base, dirs, files in os.walk(dst, topdown=False):
        for name in files:
            rel = os.path.relpath(os.path.join(base, name), dst)
            if rel not in wanted:
                os.remove(os.path.join(base, name))
        if base != dst and not os.listdir(base):
            os.rmdir(base)


# C code gets DWARF 4 debug info: Debian 12's valgrind (3.19) cannot read clang's default DWARF 5, and
# callgrind would then attribute the C target's instructions to no function. Asked for here rather than
# in Package.swift, where it would take unsafeFlags, which bar the package from being a versioned dependency.
PROFILE_BUILD_FLAGS = ["-Xcc", "-gdwarf-4"]


def build(args):
    """Builds the release binary from a snapshot of the sources (others may edit the tree meanwhile)."""
    snapshot = os.path.join(args.work, "src")
    staging = tempfile.mkdtemp(prefix="videowm-bench-src-")
    try:
        if args.source == "worktree":
            # Tests/ too: Package.swift declares the test targets (they are not built).
            shutil.copy2(os.path.join(ROOT, "Package.swift"), staging)
            for tree in ("Sources", "Tests"):
                shutil.copytree(os.path.join(ROOT, tree), os.path.join(staging, tree), dirs_exist_ok=True)
            dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--", "Package.swift", "Sources"]).strip() != ""
            rev = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).strip()
            described = f"{rev}" + (" + uncommitted changes in Sources/ or Package.swift" if dirty else " (working tree = commit)")
        else:
            rev = sh(["git", "-C", ROOT, "rev-parse", "--short", args.source]).strip()
            archive = subprocess.run(["git", "-C", ROOT, "archive", args.source, "Package.swift", "Sources", "Tests"],
                                     stdout=subprocess.PIPE, check=True).stdout
            subprocess.run(["tar", "-x", "-C", staging], input=archive, check=True)
            described = f"{rev} (committed tree)"
        os.makedirs(snapshot, exist_ok=True)
        sync_tree(staging, snapshot)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log(f"bench: building videowm {described} (release, scratch path {args.scratch_path})")
    started = time.time()
    result = subprocess.run(["swift", "build", "-c", "release", "--product", "videowm",
                             "--package-path", snapshot, "--scratch-path", args.scratch_path] + PROFILE_BUILD_FLAGS,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: the release build failed:\n{result.stdout[-4000:]}")
    binary = os.path.join(sh(["swift", "build", "-c", "release", "--package-path", snapshot,
                              "--scratch-path", args.scratch_path, "--show-bin-path"] + PROFILE_BUILD_FLAGS).strip(), "videowm")
    log(f"bench: built in {time.time() - started:.0f} s: {binary}")
    return binary, described
