"""TVM's environment for the benchmark scripts: what `eval "$(../shared/tvm/env.sh)"` sets,
as a dict for subprocess, checked by importing tvm.auto_scheduler with it."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SCRIPT = os.path.join(os.path.dirname(ROOT), "shared", "tvm", "env.sh")
DEFAULT_PYTHON = "/usr/bin/python3"  # Debian's, which sees numpy and TVM's other dependencies


def load(script=DEFAULT_SCRIPT, python=DEFAULT_PYTHON, timeout=900):
    """(env, TVM's version) when `python` imports tvm.auto_scheduler in the environment that
    `script` prints, else (None, why not)."""
    if not os.path.exists(script):
        return None, "no TVM environment script %s" % script
    try:
        p = subprocess.run(["bash", "-c", 'eval "$("$0")" >/dev/null && env -0', script],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "%s timed out" % script
    if p.returncode != 0:
        last = p.stderr.decode(errors="replace").strip().splitlines()[-1:]
        return None, "%s failed (exit %d%s)" % (script, p.returncode, ": " + last[0] if last else "")
    env = dict(item.split("=", 1) for item in p.stdout.decode(errors="replace").split("\0") if "=" in item)
    try:
        q = subprocess.run([python, "-c", "import tvm, tvm.auto_scheduler; print(tvm.__version__)"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                           universal_newlines=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "cannot run %s: %s" % (python, e)
    if q.returncode != 0:
        last = q.stderr.strip().splitlines()[-1:]
        return None, "TVM is not importable (%s)" % (last[0] if last else "exit %d" % q.returncode)
    return env, q.stdout.strip()
