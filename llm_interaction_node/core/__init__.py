"""The ROS-free core, in packages by concept (each ``__init__`` says what is in it and why):
the user's side (``user``), what the user said, read (``reading``), the decoding guides
(``guides``) and the grammar (``decoding``), the console's text and the exceptions its code
sees (``transcript``), the console and its sandbox (``console``, ``sandbox``), the robot APIs
and their registry (``apis``), the interaction loop (``agent``), learning and the example
memory (``learning``, ``memory``), the LLM clients (``llm``) and the settings (``settings``).
No module lies loose here, and no package imports one that imports it back, not even through
others (``test/test_import_graph.py``)."""
