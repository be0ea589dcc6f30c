"""Instance-action notifications: payloads, the notifier and the manager decorator."""
