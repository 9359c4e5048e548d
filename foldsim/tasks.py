"""The names of the tasks, in one place for the dataset builders and the scorers: the benchmark's
open-ended tasks and the multiple-choice tasks foldsim adds (choice, yes/no split, plan choice)."""

#: the MentalBlackboard tasks: the answer is a hole list (and unfolding codes), or a plan
OPEN_TASKS = ("prediction", "backward", "text", "generalization", "planning")
#: the answer is a label (choice, plan-choice) or yes/no (split)
CHOICE_TASKS = ("choice", "split", "plan-choice")
