"""The publishing workflow: valid YAML, and it builds with the README's own make targets."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"


def test_workflow_is_valid_and_deploys_to_pages():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    jobs = workflow["jobs"]
    steps = [step for job in jobs.values() for step in job["steps"]]
    uses = [step.get("uses", "") for step in steps]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    # YAML 1.1 reads the key `on` as true: the trigger is a push to main.
    trigger = workflow.get("on", workflow.get(True))
    assert trigger["push"]["branches"] == ["main"]


def test_workflow_uses_the_readmes_make_targets():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    commands = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    targets = {t for command in commands for t in re.findall(r"\bmake (\w+)", command)}
    assert targets == {"site"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in targets:
        assert f"make {target}" in readme, f"make {target} is not in the README"
        assert re.search(rf"^{target}:", makefile, re.M), f"no {target} target in the Makefile"
    # The site is built for the address it is published at.
    assert any("SITE_URL" in step.get("env", {}) for job in workflow["jobs"].values() for step in job["steps"])


def test_the_published_site_links_its_repository():
    # The header's repository link and the citations' repository come from REPO_URL, which the publishing
    # workflow sets to the repository it runs in; mkdocs.yml reads it (and a local build has none).
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    build = [step for job in workflow["jobs"].values() for step in job["steps"] if "make site" in step.get("run", "")]
    assert build and build[0]["env"].get("REPO_URL") == "${{ github.server_url }}/${{ github.repository }}"
    assert re.search(r"^repo_url: !ENV REPO_URL$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
