"""llm-interaction bag: look into a bag written by ``llm-interaction run --record DIR``.

    llm-interaction bag summary DIR              # topics, counts, time span, the dialogue
    llm-interaction bag summary DIR --no-dialogue

Any rosbag2 directory (MCAP or sqlite3) works: the message types come from the bag.
rclpy is not needed (rosbags reads the files).
"""
from __future__ import annotations

import argparse
import sys


def cmd_bag_summary(args: argparse.Namespace) -> int:
    from rosbags.rosbag2 import ReaderError

    from .ros.bag import summary
    try:
        print(summary(args.dir, dialogue=not args.no_dialogue))
    except (FileNotFoundError, ReaderError) as exc:
        print(f"error: {args.dir} is not a readable rosbag2 bag: {exc}", file=sys.stderr)
        return 2
    return 0


def add_bag_parser(subparsers) -> argparse.ArgumentParser:
    bag = subparsers.add_parser("bag", help="look into a recorded run (rosbag2)",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = bag.add_subparsers(dest="bag_command", required=True)
    summary = commands.add_parser("summary", help="what the bag holds and the dialogue as text")
    summary.add_argument("dir", help="bag directory (llm-interaction run --record DIR)")
    summary.add_argument("--no-dialogue", action="store_true",
                         help="only the topics and counts")
    summary.set_defaults(func=cmd_bag_summary)
    return bag
