"""The image service client and image system metadata helpers."""
