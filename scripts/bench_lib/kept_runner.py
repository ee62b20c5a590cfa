"""TVM's LocalRunner with its runner process kept across calls.

LocalRunner.run starts a fresh runner process per call and times the whole batch in it, as
TVM's tuner does with each batch of candidates. A benchmark that times one state per call
would put every state first in a fresh process, where glibc serves every large block from
its own mmap: the arguments and workspaces then start at one offset within their pages, and a
kernel walking several of them with strides of whole pages 4K-aliases its loads on its stores
(the rfactor states of resnet-18's max_pool2d ran 2.5x slower so, and only in the first
process of a batch). Keeping one process for all calls times every state as a batch would.
"""


class KeptProcessRunner:
    """Times inputs with `runner` (an auto_scheduler.LocalRunner), every call in one runner
    process started on the first call (and again by TVM after a timeout killed it)."""

    def __init__(self, runner):
        self.runner = runner
        self.worker = None

    def run(self, inputs, builds):
        from tvm.auto_scheduler import measure as tvm_measure
        from tvm.contrib.popen_pool import PopenWorker

        if self.worker is None:
            self.worker = PopenWorker()
        started = tvm_measure.PopenWorker
        tvm_measure.PopenWorker = lambda: self.worker
        try:
            return self.runner.run(inputs, builds, verbose=0)
        finally:
            tvm_measure.PopenWorker = started

    def close(self):
        if self.worker is not None:
            self.worker.kill()
            self.worker = None
