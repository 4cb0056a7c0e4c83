"""TVM's ``tvm.contrib.cudnn``: ``exists()`` says whether cuDNN can be used; it cannot here."""


def exists() -> bool:
    """Whether cuDNN is available: never here (no GPU library is linked)."""
    return False
