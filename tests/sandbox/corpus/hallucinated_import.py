# expect: gate
import crafter_skills_pro

def act(view):
    yield from crafter_skills_pro.get_wood(view)
