"""Default topic, action and service names shared by the nodes (all relative: remappable,
and they follow the node's namespace). The parameters of each node can rename them."""

# skill action servers (served by the robot or the simulator, used by the interaction node):
# ``skills/<skill>``, declared with the skills in ros/skills.py (SKILL_ACTIONS)

# perception: the whole perceived scene (llm_interaction_interfaces/msg/Scene)
SCENE = "perception/scene"

# speech, as in common ROS speech stacks: recognised text in, text to speak out (std_msgs/String)
ASR_TEXT = "speech/asr_text"
TTS_TEXT = "speech/tts_text"
# speech audio (llm_interaction_interfaces/msg/AudioData, 16 kHz mono S16LE): what the
# microphone (or a WAV file source) hears -> the asr node; what the robot says <- the tts node
AUDIO = "speech/audio"
TTS_AUDIO = "speech/tts_audio"
# std_msgs/Bool, latched: true while the robot speaks (the asr node ignores its own voice)
SPEAKING = "speech/speaking"
# llm_interaction_interfaces/msg/AsrResult: every utterance the asr node cut, with its
# confidence and outcome (only 'sent' ones also go to ASR_TEXT)
ASR_RESULT = "speech/asr_result"
# std_msgs/Bool, latched: true from when the asr node's VAD hears the user start speaking
# until the speech ended (not the robot's own voice); the interaction node starts nothing new
# meanwhile (core/user/speech_pause.py), so a spoken stop beats the next statement
VOICE_ACTIVITY = "speech/voice_activity"

# the interaction node's own interfaces
TRANSCRIPT = "interaction/transcript"      # llm_interaction_interfaces/msg/ConsoleEntry
STATE = "interaction/state"                # std_msgs/String: idle | busy | learning | warming
LLM_PROGRESS = "interaction/llm_progress"  # std_msgs/String: how far a long LLM call is
STOP = "interaction/stop"                  # std_msgs/Empty topic and std_srvs/Trigger service
RESET = "interaction/reset"                # std_srvs/Trigger
LEARN = "interaction/learn"                # llm_interaction_interfaces/srv/Learn
MEMORY = "interaction/memory"              # llm_interaction_interfaces/srv/ManageMemory
INSTRUCT = "interaction/instruct"          # llm_interaction_interfaces/action/Instruct (served)
ANSWER = "interaction/answer"              # llm_interaction_interfaces/srv/Answer

# what the robot does, for RViz / Foxglove and the recorder
MARKERS = "interaction/markers"            # visualization_msgs/MarkerArray of the scene memory
SKILL_EVENTS = "interaction/skills"        # std_msgs/String, JSON: each skill goal and result
SIM_MARKERS = "household_sim/markers"      # visualization_msgs/MarkerArray of the simulated world
TABLETOP_MARKERS = "tabletop_sim/markers"  # visualization_msgs/MarkerArray of the tabletop
CAMERA_IMAGE = "camera/image_raw"          # sensor_msgs/Image (rgb8) of the PyBullet tabletop
RECORDER_NODE = "recorder"                 # the bag recorder's node name (listens, never answers)

# the household simulator's extras (tests, debugging)
WORLD_STATE = "household_sim/world_state"  # std_msgs/String, JSON snapshot, transient local
WORLD_RESET = "household_sim/reset"        # std_srvs/Trigger
