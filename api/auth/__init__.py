"""Local administrators, login sessions and the guards every route but health sits behind."""
