/** Where a node sits in a task's YAML: the keys and item indexes from the task's mapping down. */
export type NodePath = (string | number)[];
