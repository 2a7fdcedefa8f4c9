"""Whether a process is alive, for the locks and temporaries whose owner may have died.

Example:
    >>> import os
    >>> pid_alive(os.getpid())
    True
"""

from __future__ import annotations

import os

__all__ = ["pid_alive"]


def pid_alive(pid: int) -> bool:
    """True when a process ``pid`` exists on this host (one this user cannot signal counts as alive).

    On Windows ``os.kill(pid, 0)`` would send CTRL_C_EVENT: every process counts as alive there
    (the callers rely on their leases instead).
    """
    if pid == os.getpid() or os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, as another user's
        return True
    return True
