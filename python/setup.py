"""pip install ./python: the minflow package, pure Python (cffi finds
libminflow at run time: see python/README.md). setup.py alone, with no
pyproject.toml, so pip builds it with the setuptools already installed (no
download, no build isolation): it works offline with Debian's
python3-setuptools."""
from setuptools import setup

setup(
    name="minflow",
    version="0.1.0",
    description="TensorFlow 1-style graphs run by minflow, on its C API",
    packages=["minflow"],
    python_requires=">=3.8",
    install_requires=["numpy", "cffi"],
)
