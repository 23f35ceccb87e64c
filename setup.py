"""The compiled kernels (``kaboom/solver/_kernels/*.pyx``), built by Cython at install time.

Everything else about the package is in ``pyproject.toml``; setuptools' table for
extension modules there is still experimental, so the extensions are declared here: one
for each ``.pyx`` in the kernels' folder.
"""

from pathlib import Path

from setuptools import Extension, setup

KERNELS = sorted(Path("kaboom/solver/_kernels").glob("*.pyx"))

setup(ext_modules=[Extension(".".join(p.with_suffix("").parts), [p.as_posix()]) for p in KERNELS])
