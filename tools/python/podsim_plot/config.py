"""What a file's `config_yaml` attribute says: the scenario's name, its topology, a sweep's keys."""
import yaml

from .errors import PlotError


def documents(podsim_file):
    """The YAML documents of config_yaml: one (the resolved scenario or request), or for a
    sweep two (the sweep file as read, then the resolved base scenario)."""
    text = podsim_file.attrs.get("config_yaml", "")
    if not isinstance(text, str):
        raise PlotError(podsim_file.path, "config_yaml is not text")
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as error:
        raise PlotError(podsim_file.path, f"config_yaml is not YAML ({getattr(error, 'problem', None) or error})") from None
    except RecursionError:  # PyYAML builds nested lists recursively
        raise PlotError(podsim_file.path, "config_yaml is nested too deeply") from None
    if not docs or not all(isinstance(d, dict) for d in docs):
        raise PlotError(podsim_file.path, "config_yaml holds no configuration")
    return docs


def resolved(podsim_file):
    """The resolved scenario (or collective request): the last document."""
    return documents(podsim_file)[-1]


def _section(mapping, key):
    """mapping[key] if it is a mapping, else {}: a configuration edited by hand may hold
    anything there."""
    value = mapping.get(key)
    return value if isinstance(value, dict) else {}


def _name(section):
    return section.get("name", "?") if isinstance(section, dict) else str(section)


def _documents_or_none(podsim_file):
    try:
        return documents(podsim_file)
    except PlotError:
        return None


def title_name(podsim_file):
    """What a figure's title calls the file's subject: the scenario, the sweep, the plan's
    model and machine, the collective's topology; the file's stem without a configuration."""
    kind, tables = podsim_file.kind, podsim_file.tables
    if kind in ("run", "whatif") and "summary" in tables and len(tables["summary"]):
        return str(tables["summary"]["scenario"].iloc[0])
    config = _documents_or_none(podsim_file)
    if config is None:
        return podsim_file.path.stem
    if kind == "sweep":
        return str(config[0].get("name", podsim_file.path.stem))
    scenario = config[-1]
    if kind == "plan":
        batch = _section(scenario, "training").get("global_batch", "?")
        return (f"{_name(scenario.get('model'))} on {_name(scenario.get('topology'))} "
                f"({_name(scenario.get('hardware'))}), global batch {batch}")
    if kind == "collective":
        return _name(scenario.get("topology"))
    return str(scenario.get("name", podsim_file.path.stem))


def sweep_keys(podsim_file):
    """The swept keys as the sweep file spells them (`parallelism.tp`), by their column's
    suffix (`parallelism_tp`); the suffix itself for a key not found."""
    config = _documents_or_none(podsim_file)
    sweep = config[0] if config else {}
    keys = list(_section(sweep, "axes").keys())
    groups = sweep.get("zip")
    for group in groups if isinstance(groups, list) else []:
        if isinstance(group, dict):
            keys.extend(group.keys())
    return {str(key).replace(".", "_"): str(key) for key in keys}
