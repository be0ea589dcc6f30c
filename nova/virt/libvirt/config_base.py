"""Base of the libvirt XML config classes: format to ElementTree, parse back."""

import copy
from xml.etree import ElementTree as etree

from nova.virt import hardware


def _yes_no(flag):
    return 'yes' if flag else 'no'


def _bool_attr(value):
    """'yes'/'on' -> True, 'no'/'off' -> False, None stays None."""
    if value is None:
        return None
    return value in ('yes', 'on')


def _int(value):
    return int(value) if value is not None else None


def _sub(parent, tag, text=None, **attrs):
    """Append <tag> with the attributes that are not None."""
    elem = etree.SubElement(parent, tag, {k: str(v) for k, v in attrs.items()
                                          if v is not None})
    if text is not None:
        elem.text = str(text)
    return elem


def parse(xml):
    """An element from XML text (str or bytes), without the whitespace
    between elements (as lxml's remove_blank_text): a leaf's text stays."""
    root = etree.fromstring(xml)
    for elem in root.iter():
        if len(elem) and elem.text is not None and not elem.text.strip():
            elem.text = None
        if elem.tail is not None and not elem.tail.strip():
            elem.tail = None
    return root


def to_text(elem, pretty_print=True):
    """XML text of ``elem`` as libvirt writes it (``<a/>``); pretty (``elem``
    re-indented in place): two-space indents and a final newline."""
    if pretty_print:
        etree.indent(elem)
    # ElementTree writes empty elements as "<a />". An attribute value or a
    # text never holds " />": both have their ">" escaped (and parsing
    # drops comments).
    text = etree.tostring(elem, encoding='unicode').replace(' />', '/>')
    return text + '\n' if pretty_print else text


def _cpus(value):
    """Accept '0-3' or {0, 1, 2, 3}; the XML wants the string form."""
    if value is None or isinstance(value, str):
        return value
    return hardware.format_cpu_spec(value)


# Attributes that name a host file wherever libvirt uses them.
PATH_ATTRS = ('file', 'path')


def _rewrite_raw_paths(elem, func):
    """``func`` applied to the file/path attributes of a kept element."""
    for node in elem.iter():
        for attr in PATH_ATTRS:
            value = node.get(attr)
            if value:
                node.set(attr, func(value))


def _reorder(elem, order):
    """Sort ``elem``'s children by the tag order a parsed element had
    (tags it did not have go last, in place); returns ``elem``."""
    if order:
        rank = {}
        for tag in order:
            rank.setdefault(tag, len(rank))
        elem[:] = sorted(elem, key=lambda e: rank.get(e.tag, len(rank)))
    return elem


class ConfigObject:
    """Base: subclasses set ``root_name``, extend ``format_dom`` and, when
    the driver reads that element back, ``parse_dom``.

    Children a parser does not model are kept in ``extra`` (copies of the
    elements) and appended again by ``format_dom``, so parsing a domain
    libvirt wrote and formatting it loses nothing.
    """

    root_name = None
    extra = ()
    child_order = ()            # child tags in the order a parsed element had
    path_fields = ()            # attributes that hold host file paths

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise TypeError('%s has no attribute %r'
                                % (type(self).__name__, key))
            setattr(self, key, value)

    def format_dom(self):
        return etree.Element(self.root_name)

    def to_xml(self, pretty_print=True):
        return to_text(self.format_dom(), pretty_print)

    def parse_dom(self, xmldoc):
        """Fill this object from an ElementTree element; returns ``self``."""
        raise NotImplementedError('%s has no parser' % type(self).__name__)

    def parse_str(self, xmlstr):
        """Fill this object from XML text; returns ``self``."""
        return self.parse_dom(parse(xmlstr))

    @classmethod
    def from_xml(cls, xml):
        """A new object parsed from XML text or an ElementTree element."""
        if isinstance(xml, etree.Element):
            return cls().parse_dom(xml)
        return cls().parse_str(xml)

    def _keep(self, child):
        """Remember a child element the parser does not model."""
        if not isinstance(child.tag, str):
            return      # comments, processing instructions
        if not self.extra:
            self.extra = []
        self.extra.append(copy.deepcopy(child))

    def _append_extra(self, elem):
        """Append the kept children, then restore the parsed child order."""
        for child in self.extra:
            elem.append(copy.deepcopy(child))
        return _reorder(elem, self.child_order)

    @staticmethod
    def _simple(child, attrs):
        """True when ``child`` has no children and only ``attrs``: an
        element the parser can model without losing anything."""
        return not len(child) and set(child.attrib) <= set(attrs)

    def _start_parse(self, xmldoc):
        self.child_order = [c.tag for c in xmldoc if isinstance(c.tag, str)]
        self.extra = []

    def _parts(self):
        """The config objects inside this one (rewrite_paths walks them)."""
        return ()

    def rewrite_paths(self, func):
        """Replace each host file path this object names with ``func(path)``:
        its ``path_fields``, those of the objects inside it, and the
        file/path attributes of the elements it keeps verbatim.  Returns
        ``self``."""
        for name in self.path_fields:
            value = getattr(self, name)
            if value:
                setattr(self, name, func(value))
        for part in self._parts():
            if part is not None:
                part.rewrite_paths(func)
        for elem in self.extra:
            _rewrite_raw_paths(elem, func)
        return self


class RawElement(ConfigObject):
    """An element kept verbatim: devices and domain parts the driver never
    changes (input, memballoon, PCI controllers...) survive a round trip."""

    element = None

    def format_dom(self):
        return copy.deepcopy(self.element)

    def parse_dom(self, xmldoc):
        self.element = copy.deepcopy(xmldoc)
        self.root_name = xmldoc.tag
        return self

    def rewrite_paths(self, func):
        _rewrite_raw_paths(self.element, func)
        return self


class ExtraAttrs:
    """Attributes a parser does not model, per element of an object
    (``''`` is the object's own element), written back by ``format_dom``.
    """

    def __init__(self):
        self.attrs = {}

    def take(self, key, elem, known):
        """Remember ``elem``'s attributes outside ``known``."""
        rest = {k: v for k, v in elem.attrib.items() if k not in known}
        if rest:
            self.attrs[key] = rest

    def put(self, key, elem):
        for name, value in self.attrs.get(key, {}).items():
            elem.set(name, value)
        return elem
