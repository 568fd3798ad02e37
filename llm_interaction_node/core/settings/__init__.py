"""How the core is configured and where it finds its files: the typed settings mechanism
(:mod:`.config`: every section is a dataclass of :func:`~.config.setting` fields with their
default, description, range and environment variable, read by one parser), where the
package's config files are (:mod:`.config_files`: the source tree, then the installed share
dirs), where built files are kept (:mod:`.cache`: the models, their saved states), and the
format of the household world files in ``config/worlds/`` (:mod:`.world_file`: read and
checked in one place for the simulator and the robot's static knowledge). The sections
themselves live with the code they configure (``core/agent/config.py``,
``core/llm/config.py``, ``core/memory/config.py``); the one ``Settings`` object is the
package's ``settings.py``, above the core.

Nothing is imported here: a module that needs a config file does not load the parser, and
reading a world file loads no robot API (``llm-interaction run`` checks ``--world`` with it).
"""
