from envflags.flags import env_flag

__all__ = ["env_flag"]
