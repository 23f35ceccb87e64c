"""The compiled kernel (``kaboom/solver/_kernels.pyx``), built by Cython at install time.

Everything else about the package is in ``pyproject.toml``; setuptools' table for
extension modules there is still experimental, so the one extension is declared here.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("kaboom.solver._kernels", ["kaboom/solver/_kernels.pyx"])])
